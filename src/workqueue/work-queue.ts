import {
  asyncScheduler,
  from,
  isObservable,
  Observable,
  type ObservableInput,
  type OperatorFunction,
  type SchedulerAction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { defaultRateLimiter } from './default-rate-limiter.js';
import { InvalidRequestError } from './invalid-request-error.js';
import { KeyQueue, type QueueItem } from './key-queue.js';
import { UNFINISHED_WORK_UPDATE_PERIOD, type WorkQueueMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import { ReconcileAbortedError } from './reconcile-aborted-error.js';
import type {
  ReconcileOutcome,
  ReconcileOutcomeKind,
  ReconcileResult,
} from './reconcile-result.js';
import { ReconcileTimeoutError } from './reconcile-timeout-error.js';
import { checkRequestKey, parseRequestKey, requestKey, type Request, type WorkQueueInput } from './request.js';
import { isTerminalError } from './terminal-error.js';
import { WorkQueueOptionsError } from './work-queue-options-error.js';

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
   * Decides retry delays. Default: a fresh {@link defaultRateLimiter} per subscription
   * (exponential 5 ms … 1000 s, controller-runtime's default today). A limiter passed here is
   * shared by every subscription that uses these options.
   */
  readonly rateLimiter?: RateLimiter;
  /** Timers and clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Per-reconcile deadline (ms, CR-3). Default none; above 2³¹−1 ms (≈ 24.8 days) also none. */
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
  /** Starts a graceful shutdown when it aborts (an AbortSignal) or emits (like `takeUntil`'s notifier). */
  readonly shutdown?: AbortSignal | ObservableInput<unknown>;
  /** Metric hooks (client-go names); see {@link WorkQueueMetrics}. */
  readonly metrics?: WorkQueueMetrics;
}

interface Running {
  readonly item: QueueItem<Request>;
  readonly request: Request;
  readonly controller: AbortController;
  readonly attempt: number;
  sub: Subscription | undefined;
  timeoutSub: Subscription | undefined;
  settled: boolean;
  timedOut: boolean;
}

const MAX_TIMER_DELAY = 2 ** 31 - 1;
const RUNNING = 0;
const STOPPING = 1;
const STOPPED = 2;

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
 *   {@link InvalidRequestError} after a graceful shutdown.
 * - Shutdown, graceful (input completes or errors, or `shutdown` fires): no more input, queued
 *   and scheduled keys are dropped (unless `drain`), running reconciles get `shutdownGracePeriod`
 *   ms to finish, then their signals abort and they are reported as `aborted`; then the output
 *   completes (or errors with the input's error). Unsubscribing is immediate: running
 *   reconciles are aborted (`ReconcileAbortedError('unsubscribed')`) and all timers cleared.
 * - All timers (requeues, timeouts, grace, metrics) run on `scheduler`.
 */
export function workQueue(
  reconcile: Reconciler,
  options: WorkQueueOptions = {},
): OperatorFunction<WorkQueueInput, ReconcileOutcome> {
  if (typeof reconcile !== 'function') throw new WorkQueueOptionsError('workQueue needs a reconcile function');
  const concurrency = checkConcurrency(options.concurrency);
  // Deadlines beyond what a timer can hold (2³¹−1 ms ≈ 24.8 days) count as none.
  const rawTimeout = checkOptionalDuration('reconcileTimeoutMs', options.reconcileTimeoutMs);
  const timeout = rawTimeout !== undefined && rawTimeout <= MAX_TIMER_DELAY ? rawTimeout : undefined;
  const rawGrace = checkOptionalDuration('shutdownGracePeriodMs', options.shutdownGracePeriodMs) ?? 30_000;
  const grace = rawGrace <= MAX_TIMER_DELAY ? rawGrace : Infinity;
  const scheduler = options.scheduler ?? asyncScheduler;
  const drain = options.drain === true;
  const metrics = options.metrics ?? {};
  const reportsUnfinished =
    metrics.unfinishedWorkSeconds !== undefined || metrics.longestRunningProcessorSeconds !== undefined;

  return (source) =>
    new Observable<ReconcileOutcome>((subscriber) => {
      const limiter = options.rateLimiter ?? defaultRateLimiter();
      const now = (): number => scheduler.now();
      const queue = new KeyQueue<Request>(now, metrics);
      const running = new Set<Running>();
      let phase = RUNNING;
      let pumping = false;
      let stopError: { error: unknown } | undefined;
      let wakeSub: Subscription | undefined;
      let wakeAt = Infinity;
      let graceSub: Subscription | undefined;
      let tickSub: Subscription | undefined;
      let sourceSub: Subscription | undefined;
      let shutdownSub: Subscription | undefined;
      let removeAbortListener: (() => void) | undefined;

      const arm = (): void => {
        const next = phase === RUNNING ? queue.nextReadyAt() : undefined;
        if (next === wakeAt) return;
        wakeSub?.unsubscribe();
        wakeSub = undefined;
        wakeAt = next ?? Infinity;
        // Node clamps timer delays above 2³¹−1 ms to 1 ms: wake earlier and re-arm instead.
        if (next !== undefined && Number.isFinite(next)) {
          wakeSub = scheduler.schedule(onWake, Math.min(MAX_TIMER_DELAY, Math.max(0, next - now())));
        }
      };

      const onWake = (): void => {
        wakeSub = undefined;
        wakeAt = Infinity;
        queue.promote();
        arm();
        pump();
      };

      const onInput = (input: WorkQueueInput): void => {
        if (phase !== RUNNING) return;
        let key: string;
        let value: Request | undefined;
        let after: number | undefined;
        let priority: number | undefined;
        try {
          if (typeof input === 'string') {
            key = input;
            if (!queue.has(key)) checkRequestKey(key); // parsed when the key is handed out
          } else if (input !== null && typeof input === 'object' && 'request' in input) {
            const r = input.request;
            value = typeof r === 'string' ? parseRequestKey(r) : r;
            key = typeof r === 'string' ? r : requestKey(r);
            priority = checkPriority(input.priority);
            if (input.after !== undefined) after = checkAfter(input.after);
            if (input.rateLimited === true) {
              const wait = limiter.when(key);
              after = after === undefined ? wait : Math.min(after, wait);
            }
          } else {
            key = requestKey(input);
            value = input;
          }
        } catch (error) {
          stop(error instanceof InvalidRequestError ? { error } : { error: new InvalidRequestError(String(error)) });
          return;
        }
        if (queue.add(key, value, after, priority)) arm();
        pump();
      };

      const pump = (): void => {
        if (pumping) return;
        pumping = true;
        try {
          while (running.size < concurrency && (phase === RUNNING || (phase === STOPPING && drain))) {
            const item = queue.get();
            if (item === undefined) break;
            start(item);
          }
        } finally {
          pumping = false;
        }
        if (phase === STOPPING) maybeFinish();
      };

      const start = (item: QueueItem<Request>): void => {
        const run: Running = {
          item,
          request: item.value ?? parseRequestKey(item.key),
          controller: new AbortController(),
          attempt: limiter.numRequeues(item.key) + 1,
          sub: undefined,
          timeoutSub: undefined,
          settled: false,
          timedOut: false,
        };
        running.add(run);
        if (reportsUnfinished && tickSub === undefined) {
          tickSub = scheduler.schedule(tick, UNFINISHED_WORK_UPDATE_PERIOD);
        }
        let ret: ReconcileReturn;
        try {
          ret = reconcile(run.request, run.controller.signal);
        } catch (error) {
          settle(run, true, error);
          return;
        }
        if (isObservable(ret)) {
          // Settle only after the reconcile's subscription is torn down (its finalizers ran), so
          // the next reconcile of the key never overlaps the previous one's cleanup.
          let last: ReconcileResult | void | undefined;
          let end: { failed: boolean; value: unknown } | undefined;
          const sub = (ret as Observable<ReconcileResult | void | undefined>).subscribe({
            next: (v) => {
              last = v;
            },
            error: (e: unknown) => {
              end = { failed: true, value: e };
            },
            complete: () => {
              end = { failed: false, value: last };
            },
          });
          run.sub = sub;
          sub.add(() => {
            if (end !== undefined) settle(run, end.failed, end.value);
          });
        } else if (isThenable(ret)) {
          ret.then(
            (v) => settle(run, false, v),
            (e: unknown) => settle(run, true, e),
          );
        } else {
          settle(run, false, ret);
          return;
        }
        if (timeout !== undefined && !run.settled) {
          run.timeoutSub = scheduler.schedule(() => onTimeout(run, timeout), timeout);
        }
      };

      const onTimeout = (run: Running, ms: number): void => {
        if (run.settled) return;
        const error = new ReconcileTimeoutError(ms);
        run.timedOut = true;
        run.controller.abort(error);
        if (run.sub !== undefined) {
          // An Observable reconcile stops when unsubscribed; a Promise keeps the key until it settles.
          run.sub.unsubscribe();
          settle(run, true, error);
        }
      };

      const settle = (run: Running, failed: boolean, value: unknown): void => {
        if (run.settled) return;
        run.settled = true;
        run.timeoutSub?.unsubscribe();
        if (phase === STOPPED || !running.delete(run)) return;
        const { item } = run;
        const key = item.key;
        const duration = now() - item.startedAt;
        let kind: ReconcileOutcomeKind;
        let result: ReconcileResult | undefined;
        let error: unknown;
        let requeueAfter: number | undefined;
        if (run.timedOut) {
          failed = true;
          value = run.controller.signal.reason;
        }
        if (failed) {
          error = value;
          if (isTerminalError(value)) {
            kind = 'terminal_error';
          } else {
            kind = 'error';
            requeueAfter = limiter.when(key); // consulted even while stopping (RL-6)
            requeue(key, requeueAfter, item.priority);
          }
        } else {
          result = normalizeResult(value);
          const priority = result.priority ?? item.priority;
          if (result.requeueAfter !== undefined && result.requeueAfter > 0) {
            kind = 'requeue_after';
            limiter.forget(key);
            requeueAfter = result.requeueAfter;
            requeue(key, requeueAfter, priority);
          } else if (result.requeue === true) {
            kind = 'requeue';
            requeueAfter = limiter.when(key);
            requeue(key, requeueAfter, priority);
          } else {
            kind = 'success';
            limiter.forget(key);
          }
        }
        queue.done(item);
        arm();
        const outcome: ReconcileOutcome = {
          key,
          request: run.request,
          kind,
          attempt: run.attempt,
          startedAt: item.startedAt,
          duration,
          timedOut: run.timedOut,
          ...(result !== undefined ? { result } : {}),
          ...(failed ? { error } : {}),
          ...(requeueAfter !== undefined && phase === RUNNING ? { requeueAfter } : {}),
        };
        subscriber.next(outcome);
        pump();
      };

      const requeue = (key: string, after: number, priority: number): void => {
        if (phase === RUNNING) queue.add(key, undefined, after, priority);
      };

      const tick = function (this: SchedulerAction<unknown>): void {
        const t = now();
        let sum = 0;
        let max = 0;
        for (const run of running) {
          const age = (t - run.item.startedAt) / 1000;
          sum += age;
          if (age > max) max = age;
        }
        metrics.unfinishedWorkSeconds?.(sum);
        metrics.longestRunningProcessorSeconds?.(max);
        if (running.size > 0 && phase !== STOPPED) this.schedule(undefined, UNFINISHED_WORK_UPDATE_PERIOD);
        else tickSub = undefined;
      };

      const stop = (error?: { error: unknown }): void => {
        if (phase !== RUNNING) return;
        phase = STOPPING;
        stopError = error;
        sourceSub?.unsubscribe();
        shutdownSub?.unsubscribe();
        removeAbortListener?.();
        queue.shutDown();
        arm();
        if (Number.isFinite(grace)) graceSub = scheduler.schedule(onGraceExpired, grace);
        pump();
      };

      const onGraceExpired = (): void => {
        graceSub = undefined;
        if (phase !== STOPPING) return;
        for (const run of [...running]) {
          if (run.settled) continue;
          run.settled = true;
          run.timeoutSub?.unsubscribe();
          running.delete(run);
          const reason = new ReconcileAbortedError('grace-period-expired');
          run.controller.abort(reason);
          run.sub?.unsubscribe();
          subscriber.next({
            key: run.item.key,
            request: run.request,
            kind: 'aborted',
            error: reason,
            attempt: run.attempt,
            startedAt: run.item.startedAt,
            duration: now() - run.item.startedAt,
            timedOut: run.timedOut,
          });
        }
        finish();
      };

      const maybeFinish = (): void => {
        if (running.size === 0 && (!drain || queue.len === 0)) finish();
      };

      const finish = (): void => {
        if (phase === STOPPED) return;
        phase = STOPPED;
        if (stopError !== undefined) subscriber.error(stopError.error);
        else subscriber.complete();
      };

      subscriber.add(() => {
        phase = STOPPED;
        sourceSub?.unsubscribe();
        shutdownSub?.unsubscribe();
        removeAbortListener?.();
        wakeSub?.unsubscribe();
        graceSub?.unsubscribe();
        tickSub?.unsubscribe();
        for (const run of running) {
          run.settled = true;
          run.timeoutSub?.unsubscribe();
          run.controller.abort(new ReconcileAbortedError('unsubscribed'));
          run.sub?.unsubscribe();
        }
        running.clear();
      });

      const shutdown = options.shutdown;
      if (shutdown !== undefined) {
        if (isAbortSignal(shutdown)) {
          if (shutdown.aborted) stop();
          else {
            const onAbort = (): void => stop();
            shutdown.addEventListener('abort', onAbort, { once: true });
            removeAbortListener = () => shutdown.removeEventListener('abort', onAbort);
          }
        } else {
          shutdownSub = from(shutdown).subscribe({ next: () => stop() });
        }
      }
      if (phase === RUNNING) {
        sourceSub = source.subscribe({
          next: onInput,
          error: (error: unknown) => stop({ error }),
          complete: () => stop(),
        });
        if (phase !== RUNNING) sourceSub.unsubscribe();
      }
    });
}

export type { Request, WorkQueueAdd, WorkQueueInput } from './request.js';
export type { ReconcileOutcome, ReconcileOutcomeKind, ReconcileResult } from './reconcile-result.js';
export type { RateLimiter } from './rate-limiter.js';
export type { WorkQueueMetrics } from './metrics.js';

function normalizeResult(value: unknown): ReconcileResult {
  if (value === null || typeof value !== 'object') return {};
  return value as ReconcileResult;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;
}

function checkConcurrency(value: number | undefined): number {
  if (value === undefined) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new WorkQueueOptionsError(`concurrency must be an integer, got ${String(value)}`);
  }
  return value <= 0 ? 1 : value;
}

function checkOptionalDuration(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new WorkQueueOptionsError(`${name} must be a number of milliseconds ≥ 0, got ${String(value)}`);
  }
  return value;
}

function checkPriority(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidRequestError(`priority must be a finite number, got ${String(value)}`);
  }
  return value;
}

function checkAfter(value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidRequestError(`after must be a number (ms), got ${String(value)}`);
  }
  return value;
}
