import { type Observer, type SchedulerLike, asyncScheduler } from 'rxjs';
import type { BackoffOptions } from './backoff.js';
import { ReflectorConfigError } from './reflector-errors.js';
import type { ReflectorStatus } from './reflector-status.js';

/** Options of {@link listWatch}. Durations are milliseconds unless the name says seconds. */
export interface ListWatchOptions {
  /**
   * Page size of lists. When absent: 500 for lists at resourceVersion `""`/`"0"` (and for every
   * list once a `"0"` list came back paged), no paging for lists at a specific version (RE-4).
   */
  readonly pageSize?: number;
  /**
   * Try a streaming list first (`sendInitialEvents=true`, WL-1..WL-4) and fall back to list+watch
   * when the server refuses it. Default false (servers before 1.27 ignore the parameter and would
   * never send the end-of-initial-events bookmark). Ignored when the ListWatcher declares
   * `supportsStreamingList: false`.
   */
  readonly streamingList?: boolean;
  /** Lower bound of the random watch `timeoutSeconds`; honoured only above 300 (RE-7). Upper bound is 2×. */
  readonly minWatchTimeoutSeconds?: number;
  /**
   * A watch still open this long after its `timeoutSeconds` elapsed (and silent for at least as
   * long) is treated as dead: aborted, reported as `WatchStalledError`, and reopened from the last
   * resourceVersion after a backoff. Default 30 000.
   */
  readonly stallMarginMs?: number;
  /**
   * Optional: a watch silent this long is treated as dead, regardless of its timeout. Useful with
   * servers that send periodic bookmarks (kube-apiserver does about once a minute). Default off.
   */
  readonly idleTimeoutMs?: number;
  /**
   * A list page unanswered this long is aborted and counts as a failed list (backoff, relist).
   * kube-apiserver ends requests after 60 s (`--request-timeout`). Default 90 000; 0 disables.
   */
  readonly listTimeoutMs?: number;
  /** Backoff between failed attempts (BO-1, BO-2). */
  readonly backoff?: BackoffOptions;
  /** Re-watch immediately after 500 InternalError events for up to this long (RE-10). Default 0 (never). */
  readonly maxInternalErrorRetryMs?: number;
  /** Consecutive 401/403 answers tolerated before the stream errors with `ReflectorFatalError`. Default 2. */
  readonly authRetries?: number;
  /** Extra errors to treat as fatal (the stream errors with `ReflectorFatalError`). */
  readonly isFatal?: (error: unknown) => boolean;
  /** Scheduler of every timer and clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Random source in `[0, 1)` for jitter and watch timeouts. Default `Math.random`. */
  readonly random?: () => number;
  /** Receives status updates; completed when the stream ends or is unsubscribed. */
  readonly status?: Partial<Observer<ReflectorStatus>>;
}

/** Options with defaults applied. */
export interface ResolvedListWatchOptions {
  readonly pageSize: number | undefined;
  readonly streamingList: boolean;
  readonly minWatchTimeoutSeconds: number;
  readonly stallMarginMs: number;
  readonly idleTimeoutMs: number | undefined;
  readonly listTimeoutMs: number | undefined;
  readonly backoff: BackoffOptions;
  readonly maxInternalErrorRetryMs: number;
  readonly authRetries: number;
  readonly isFatal: (error: unknown) => boolean;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly status: Partial<Observer<ReflectorStatus>> | undefined;
}

/** client-go's minimum watch timeout (RE-7). */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;

function check(ok: boolean, option: string, message: string): void {
  if (!ok) throw new ReflectorConfigError(`listWatch: ${message}`, { option });
}

function nonNegative(value: number | undefined, name: string): void {
  if (value !== undefined) check(Number.isFinite(value) && value >= 0, name, `${name} must be a finite number >= 0, got ${value}`);
}

/** Validates `options` and applies defaults; throws `ReflectorConfigError` on bad input. */
export function resolveListWatchOptions(options: ListWatchOptions): ResolvedListWatchOptions {
  nonNegative(options.pageSize, 'pageSize');
  if (options.pageSize !== undefined) check(Number.isInteger(options.pageSize), 'pageSize', 'pageSize must be an integer');
  nonNegative(options.minWatchTimeoutSeconds, 'minWatchTimeoutSeconds');
  nonNegative(options.stallMarginMs, 'stallMarginMs');
  nonNegative(options.idleTimeoutMs, 'idleTimeoutMs');
  nonNegative(options.listTimeoutMs, 'listTimeoutMs');
  nonNegative(options.maxInternalErrorRetryMs, 'maxInternalErrorRetryMs');
  nonNegative(options.authRetries, 'authRetries');
  const b = options.backoff ?? {};
  nonNegative(b.initialMs, 'backoff.initialMs');
  nonNegative(b.maxMs, 'backoff.maxMs');
  nonNegative(b.jitter, 'backoff.jitter');
  nonNegative(b.resetMs, 'backoff.resetMs');
  if (b.factor !== undefined) check(Number.isFinite(b.factor) && b.factor >= 1, 'backoff.factor', `backoff.factor must be >= 1, got ${b.factor}`);
  return {
    pageSize: options.pageSize === 0 ? undefined : options.pageSize,
    streamingList: options.streamingList ?? false,
    minWatchTimeoutSeconds: Math.max(options.minWatchTimeoutSeconds ?? 0, MIN_WATCH_TIMEOUT_SECONDS),
    stallMarginMs: options.stallMarginMs ?? 30_000,
    idleTimeoutMs: options.idleTimeoutMs,
    listTimeoutMs: options.listTimeoutMs === 0 ? undefined : (options.listTimeoutMs ?? 90_000),
    backoff: b,
    maxInternalErrorRetryMs: options.maxInternalErrorRetryMs ?? 0,
    authRetries: options.authRetries ?? 2,
    isFatal: options.isFatal ?? (() => false),
    scheduler: options.scheduler ?? asyncScheduler,
    random: options.random ?? Math.random,
    status: options.status,
  };
}
