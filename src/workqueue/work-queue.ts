import { Observable, type OperatorFunction } from 'rxjs';
import type { ReconcileOutcome } from './reconcile-result.js';
import type { Reconciler } from './reconciler.js';
import type { WorkQueueInput } from './request.js';
import { WorkQueueOptionsError } from './work-queue-options-error.js';
import { resolveWorkQueueOptions, type WorkQueueOptions } from './work-queue-options.js';
import { WorkQueueRun } from './work-queue-run.js';

/**
 * A rate-limited work queue: requests in, one reconcile per due key, reconcile outcomes out.
 *
 * ```
 * input:   -ab-a---------|    reconcile of a takes 4 frames, of b 3; concurrency 1
 * output:  -----A--B---A-|    a re-added while running (frame 4) runs again after b
 * ```
 *
 * - A key waiting in the queue is held once, however often it is added (WQ-1); a key being
 *   reconciled is never handed out again until it finishes, and a key added meanwhile runs once
 *   more afterwards (WQ-2/3). Up to `concurrency` keys run at once, first in first out across
 *   keys (higher `priority` first, PQ-1).
 * - Outcomes (CR-1): success forgets the key's failure count; an error (thrown, rejected, or an
 *   Observable error) requeues with the rate limiter; `{ requeueAfter }` forgets and requeues
 *   after the delay; `{ requeue: true }` requeues with the rate limiter; a `TerminalError` is
 *   reported only (not requeued, not forgotten). Of several pending requeue times of one key the
 *   earliest wins (DQ-2, PQ-1); adding a key directly makes it due now.
 * - Input: a key string (`"ns/name"`), a {@link rxkube!Request}, or a {@link rxkube!WorkQueueAdd} with
 *   `after` / `rateLimited` / `priority`. Invalid input errors the output with an
 *   `InvalidRequestError` after a graceful shutdown.
 * - Shutdown, graceful (input completes or errors, or `shutdown` fires): no more input, queued
 *   and scheduled keys are dropped (unless `drain`), running reconciles get `shutdownGracePeriod`
 *   ms to finish, then their signals abort and they are reported as `aborted`; then the output
 *   completes (or errors with the input's error). Unsubscribing is immediate: running
 *   reconciles are aborted (`ReconcileAbortedError('unsubscribed')`) and all timers cleared.
 * - Halt (`halt` aborts): as a shutdown with no grace period at all — running reconciles are
 *   aborted with the halt signal's reason at that moment, nothing more is handed out.
 * - Drop (`drop` emits an order, e.g. a multi-cluster controller's cluster left): the waiting and
 *   ready keys it matches are dropped and their failure counts forgotten; the running reconciles
 *   it matches are aborted with its reason and reported `aborted`, never requeued.
 * - `supersede`: a new add of a key being reconciled aborts that reconcile (reported as
 *   `superseded`), and the key runs again once it settled:
 *   ```
 *   input:   -a--a---------    reconcile of a takes 6 frames, supersede on
 *   output:  ----S-----A---    S superseded at frame 4, a runs again from 4 to 10
 *   ```
 * - `park`: a due key can be held back without running (no worker, no outcome) until an
 *   Observable fires, then it is due again (controllers park keys for read-your-writes).
 * - All timers (requeues, timeouts, grace, metrics) run on `scheduler`.
 */
export function workQueue(
  reconcile: Reconciler,
  options: WorkQueueOptions = {},
): OperatorFunction<WorkQueueInput, ReconcileOutcome> {
  if (typeof reconcile !== 'function') throw new WorkQueueOptionsError('workQueue needs a reconcile function');
  const resolved = resolveWorkQueueOptions(options);
  return (source) =>
    new Observable<ReconcileOutcome>((subscriber) => {
      const run = new WorkQueueRun(source, reconcile, resolved, subscriber);
      subscriber.add(() => run.stop());
      run.start();
    });
}

