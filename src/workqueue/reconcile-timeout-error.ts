import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * The error a reconcile fails with when it ran longer than the work queue's `reconcileTimeout`
 * (CR-3). It is also the reason of the aborted `AbortSignal`. Not terminal: the key is requeued
 * with the rate limiter.
 */
export class ReconcileTimeoutError extends RxkubeError {
  static override readonly code: string = 'WORKQUEUE_RECONCILE_TIMEOUT';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'ReconcileTimeoutError';

  constructor(readonly timeout: number) {
    super(`reconcile timed out after ${timeout}ms`);
  }
}
