import type { Observable } from 'rxjs';
import type { ReconcileResult } from './reconcile-result.js';
import type { Request } from './request.js';

/** What a reconcile step may return: a Promise, an Observable (its last value counts), or a plain value. */
export type ReconcileReturn =
  | PromiseLike<ReconcileResult | void | undefined>
  | Observable<ReconcileResult | void | undefined>
  | ReconcileResult
  | void
  | undefined;

/**
 * The reconcile step: brings the world in line for one request. `signal` aborts when the
 * reconcile times out (`reconcileTimeout`) or the queue stops (after the grace period, or at once
 * on unsubscribe). Throwing or rejecting is an ordinary error (CR-2): the key is retried with the
 * rate limiter; wrap the error in `TerminalError` to stop retrying.
 */
export type Reconciler = (request: Request, signal: AbortSignal) => ReconcileReturn;
