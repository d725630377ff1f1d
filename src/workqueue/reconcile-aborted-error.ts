import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * The reason of the `AbortSignal` handed to a reconcile that was still running when the work
 * queue stopped: after the shutdown grace period, or at once when the subscriber unsubscribed.
 */
export class ReconcileAbortedError extends RxkubeError {
  static override readonly code: string = 'WORKQUEUE_RECONCILE_ABORTED';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'ReconcileAbortedError';

  constructor(readonly reason: 'grace-period-expired' | 'unsubscribed') {
    super(
      reason === 'unsubscribed'
        ? 'reconcile aborted: the work queue was unsubscribed'
        : 'reconcile aborted: the shutdown grace period expired',
    );
  }
}
