import type { SchedulerLike } from 'rxjs';
import { ApiError } from './api-error.js';

/**
 * When and how often a request is sent again after the server answered "not now". Durations in
 * ms. Every field has a default; `retry: false` (on the connection or per call) turns retries off.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included; default 5 (so at most 4 retries). */
  readonly maxAttempts?: number;
  /** Delay before the first retry; doubles (× `factor`) after each. Default 500. */
  readonly initialDelayMs?: number;
  /** Growth of the delay per retry; default 2. */
  readonly factor?: number;
  /** Largest delay, `Retry-After` included (a longer `Retry-After` gives up instead). Default 30 000. */
  readonly maxDelayMs?: number;
  /** HTTP statuses retried; default 429, 503 and 504. */
  readonly statusCodes?: readonly number[];
  /**
   * Random extra wait, as a fraction of each delay (`[d, d·(1+jitter))`), so clients refused
   * together do not come back together; default 0.2. 0 for exact delays.
   */
  readonly jitter?: number;
  /** Jitter source in [0, 1); default `Math.random`. */
  readonly random?: () => number;
}

/** The policy with every default filled in. */
export type ResolvedRetryPolicy = Required<RetryPolicy>;

/** The default {@link RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: ResolvedRetryPolicy = Object.freeze({
  maxAttempts: 5,
  initialDelayMs: 500,
  factor: 2,
  maxDelayMs: 30_000,
  statusCodes: Object.freeze([429, 503, 504]),
  jitter: 0.2,
  random: Math.random,
});

/** `policy` with defaults, or undefined when retries are off. */
export function resolveRetryPolicy(policy: RetryPolicy | false | undefined): ResolvedRetryPolicy | undefined {
  if (policy === false) return undefined;
  return { ...DEFAULT_RETRY_POLICY, ...(policy ?? {}) };
}

/**
 * How long to wait before attempt `attempt + 1` of a `method` request that failed with `error`,
 * or undefined when it is not retried:
 *
 * - only an {@link ApiError} whose status is in `statusCodes`, and only while attempts are left;
 * - a POST only on 429: the server refused it before acting on it, whereas after a 503 or 504 a
 *   create may have happened (retrying it blindly could create twice, or fail with AlreadyExists);
 * - the delay is the exponential backoff or the server's `Retry-After`, whichever is longer,
 *   plus up to `jitter` of it; a `Retry-After` beyond `maxDelayMs` is not waited for (the error
 *   is returned).
 */
export function retryDelayMs(policy: ResolvedRetryPolicy, error: unknown, method: string, attempt: number): number | undefined {
  if (!(error instanceof ApiError) || attempt >= policy.maxAttempts) return undefined;
  if (!policy.statusCodes.includes(error.statusCode)) return undefined;
  if (method === 'POST' && error.statusCode !== 429) return undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.factor ** (attempt - 1));
  const serverAsked = (error.retryAfterSeconds ?? 0) * 1000;
  if (serverAsked > policy.maxDelayMs) return undefined;
  const delay = Math.max(backoff, serverAsked);
  return policy.jitter > 0 ? delay + delay * policy.jitter * policy.random() : delay;
}

/**
 * Resolves after `ms` on `scheduler` (virtual time in tests); rejects with the signal's reason
 * as soon as `signal` aborts.
 */
export function delayOn(scheduler: SchedulerLike, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      timer.unsubscribe();
      reject(signal?.reason);
    };
    const timer = scheduler.schedule(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
