import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * The reason of the `AbortSignal` handed to a reconcile that was still running when the work
 * queue stopped (after the shutdown grace period, or at once when the subscriber unsubscribed),
 * or that a newer add of its key superseded (`supersede` on).
 */
export class ReconcileAbortedError extends RxkubeError {
  static override readonly code: string = 'WORKQUEUE_RECONCILE_ABORTED';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'ReconcileAbortedError';

  constructor(readonly reason: 'grace-period-expired' | 'unsubscribed' | 'superseded') {
    super(
      reason === 'unsubscribed'
        ? 'reconcile aborted: the work queue was unsubscribed'
        : reason === 'superseded'
          ? 'reconcile aborted: superseded by a newer event for its key'
          : 'reconcile aborted: the shutdown grace period expired',
    );
  }
}
