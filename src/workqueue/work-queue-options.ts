import { asyncScheduler, type ObservableInput, type SchedulerLike } from 'rxjs';
import type { WorkQueueMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import type { WorkQueueOptions } from './work-queue.js';
import { WorkQueueOptionsError } from './work-queue-options-error.js';

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
