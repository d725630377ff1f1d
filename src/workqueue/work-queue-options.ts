import { asyncScheduler, type Observable, type ObservableInput, type SchedulerLike } from 'rxjs';
import type { WorkQueueMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Request } from './request.js';
import { WorkQueueOptionsError } from './work-queue-options-error.js';

/** Options of `workQueue`. */
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
  /**
   * Parks a due key instead of running it (controllers use it for read-your-writes): called as
   * `key` is about to be handed to a worker. Returning `undefined` runs it now. Returning an
   * Observable parks the key: it is not run, holds no worker, reports no outcome and leaves the
   * rate limiter alone; when that Observable first emits, completes or errors, the key is added
   * again, due at once, with its priority (and `park` is asked again when it is handed out).
   * Added again while parked, the key stays parked. On shutdown or halt, parked keys are dropped
   * like queued ones (their Observables unsubscribed). A `park` that throws runs the key.
   */
  readonly park?: (request: Request, key: string) => Observable<unknown> | undefined;
  /**
   * Orders to let go of some keys (a multi-cluster controller's cluster left). On each, every
   * waiting or ready key whose request `matches` is dropped and its failure count forgotten; every
   * running reconcile whose request matches gets its signal aborted with `reason`, is reported
   * `aborted` once it settles (an Observable reconcile at once) and is not requeued. Nothing the
   * order matched is handed out afterwards, unless added again.
   */
  readonly drop?: Observable<DropRequests>;
}

/** An order to a work queue to let go of the keys whose request `matches` (see {@link WorkQueueOptions.drop}). */
export interface DropRequests {
  readonly matches: (request: Request) => boolean;
  /** The abort reason handed to the running reconciles it matches. */
  readonly reason: unknown;
}

/** The longest delay a timer can hold (2³¹−1 ms ≈ 24.8 days); Node clamps longer ones to 1 ms. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

const DEFAULT_SHUTDOWN_GRACE_PERIOD_MS = 30_000;

/** {@link WorkQueueOptions} checked, with defaults filled in. */
export interface ResolvedWorkQueueOptions {
  readonly concurrency: number;
  /** Undefined: each subscription gets a fresh `defaultRateLimiter()`. */
  readonly rateLimiter: RateLimiter | undefined;
  readonly scheduler: SchedulerLike;
  /** Undefined: no deadline (also for deadlines a timer cannot hold). */
  readonly reconcileTimeoutMs: number | undefined;
  /** `Infinity`: wait for running reconciles however long they take. */
  readonly shutdownGracePeriodMs: number;
  readonly drain: boolean;
  readonly supersede: boolean;
  readonly shutdown: AbortSignal | ObservableInput<unknown> | undefined;
  readonly halt: AbortSignal | undefined;
  readonly metrics: WorkQueueMetrics;
  readonly drop: Observable<DropRequests> | undefined;
  readonly park: ((request: Request, key: string) => Observable<unknown> | undefined) | undefined;
}

/** @throws WorkQueueOptionsError naming the first option that is not valid. */
export function resolveWorkQueueOptions(options: WorkQueueOptions): ResolvedWorkQueueOptions {
  const concurrency = checkConcurrency(options.concurrency);
  // Deadlines beyond what a timer can hold count as none.
  const timeout = checkOptionalDuration('reconcileTimeoutMs', options.reconcileTimeoutMs);
  const grace =
    checkOptionalDuration('shutdownGracePeriodMs', options.shutdownGracePeriodMs) ?? DEFAULT_SHUTDOWN_GRACE_PERIOD_MS;
  return {
    concurrency,
    rateLimiter: options.rateLimiter,
    scheduler: options.scheduler ?? asyncScheduler,
    reconcileTimeoutMs: timeout !== undefined && timeout <= MAX_TIMER_DELAY_MS ? timeout : undefined,
    shutdownGracePeriodMs: grace <= MAX_TIMER_DELAY_MS ? grace : Infinity,
    drain: options.drain === true,
    supersede: options.supersede === true,
    shutdown: options.shutdown,
    halt: options.halt,
    metrics: options.metrics ?? {},
    drop: options.drop,
    park: options.park,
  };
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
