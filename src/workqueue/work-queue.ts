import { Observable, type ObservableInput, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { WorkQueueMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ReconcileOutcome, ReconcileResult } from './reconcile-result.js';
import type { Request, WorkQueueInput } from './request.js';
import { WorkQueueOptionsError } from './work-queue-options-error.js';
import { resolveWorkQueueOptions } from './work-queue-options.js';
import { WorkQueueRun } from './work-queue-run.js';

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

/** Options of {@link workQueue}. */
export interface WorkQueueOptions {
  /** Most reconciles running at once; must be an integer. ≤ 0 or unset → 1 (CR-4). */
  readonly concurrency?: number;
  /**
   * Decides retry delays. Default: a fresh `defaultRateLimiter()` per subscription
   * (exponential 5 ms … 1000 s, controller-runtime's default today). A limiter passed here is
   * shared by every subscription that uses these options.
   */
  readonly rateLimiter?: RateLimiter;
  /** Timers and clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Per-reconcile deadline (ms, CR-3). Default none; above 2³¹−1 ms (≈ 24.8 days) also none. When
   * it passes, the reconcile's signal aborts with a `ReconcileTimeoutError`; an Observable
   * reconcile is unsubscribed, a Promise reconcile gives its worker slot back at once (so other
   * keys go on) but keeps its key until it settles (never two reconciles of one key at once), and
   * then counts as failed with the timeout error. At most `concurrency` timed-out Promise
   * reconciles are let go at a time; beyond that one keeps its slot until it settles.
   */
  readonly reconcileTimeoutMs?: number;
  /**
   * On graceful shutdown, how long (ms) running reconciles may take before their signals are
   * aborted. Default 30 000 (controller-runtime's graceful shutdown timeout); `Infinity` (or
   * anything above 2³¹−1 ms) waits for them.
   */
  readonly shutdownGracePeriodMs?: number;
  /**
   * On graceful shutdown, keep handing out keys that are already due (including keys re-added
   * while running) until none is left or the grace period ends. Default false: only running
   * reconciles finish (controller-runtime's behaviour); keys still queued are dropped.
   */
  readonly drain?: boolean;
  /**
   * Superseding reconciles (default false): an add of a key that is being reconciled, due now (not
   * `after` a delay), aborts the running reconcile's signal with
   * `ReconcileAbortedError('superseded')`; it is reported as `superseded` (not an error: the rate
   * limiter is not consulted) and the key runs again as soon as it settles (never two reconciles
   * of one key at once). An Observable reconcile is unsubscribed at once; a Promise reconcile
   * keeps the key until it settles, so it should honour its signal. Safe when a reconcile is
   * level-based and idempotent (any prefix of its writes is a state the next run converges
   * from); not for reconciles whose partial work is not visible to the next run (a create
   * tracked only in memory, an external call not recorded anywhere).
   */
  readonly supersede?: boolean;
  /** Starts a graceful shutdown when it aborts (an AbortSignal) or emits (like `takeUntil`'s notifier). */
  readonly shutdown?: AbortSignal | ObservableInput<unknown>;
  /**
   * Stops the queue at once, without grace, when it aborts (fencing: a controller halts its queue
   * when leadership is lost). Nothing more is taken in or handed out, every running reconcile's
   * signal aborts at once with this signal's reason and is reported `aborted`, and the output
   * ends (completes, or errors with the input's error). A Promise reconcile that ignores its signal
   * may still be running; the queue no longer waits for it.
   */
  readonly halt?: AbortSignal;
  /** Metric hooks (client-go names); see {@link WorkQueueMetrics}. */
  readonly metrics?: WorkQueueMetrics;
}

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
 * - Input: a key string (`"ns/name"`), a {@link Request}, or a {@link rxkube!WorkQueueAdd} with
 *   `after` / `rateLimited` / `priority`. Invalid input errors the output with an
 *   `InvalidRequestError` after a graceful shutdown.
 * - Shutdown, graceful (input completes or errors, or `shutdown` fires): no more input, queued
 *   and scheduled keys are dropped (unless `drain`), running reconciles get `shutdownGracePeriod`
 *   ms to finish, then their signals abort and they are reported as `aborted`; then the output
 *   completes (or errors with the input's error). Unsubscribing is immediate: running
 *   reconciles are aborted (`ReconcileAbortedError('unsubscribed')`) and all timers cleared.
 * - Halt (`halt` aborts): as a shutdown with no grace period at all — running reconciles are
 *   aborted with the halt signal's reason at that moment, nothing more is handed out.
 * - `supersede`: a new add of a key being reconciled aborts that reconcile (reported as
 *   `superseded`), and the key runs again once it settled:
 *   ```
 *   input:   -a--a---------    reconcile of a takes 6 frames, supersede on
 *   output:  ----S-----A---    S superseded at frame 4, a runs again from 4 to 10
 *   ```
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

export type { Request, WorkQueueAdd, WorkQueueInput } from './request.js';
export type { ReconcileOutcome, ReconcileOutcomeKind, ReconcileResult } from './reconcile-result.js';
export type { RateLimiter } from './rate-limiter.js';
export type { WorkQueueMetrics } from './metrics.js';
