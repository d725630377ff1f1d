import { checkDuration, RateLimiterOptionsError, type RateLimiter } from './rate-limiter.js';

/** Options of {@link exponentialFailureRateLimiter}. */
export interface ExponentialFailureRateLimiterOptions {
  /** First delay (ms). Default 5 (controller-runtime). */
  readonly baseDelayMs?: number;
  /** Largest delay (ms). Default 1 000 000 (1000 s). */
  readonly maxDelayMs?: number;
}

/**
 * Per-key exponential backoff (RL-1): the n-th retry of a key since it was last forgotten waits
 * `min(baseDelay · 2ⁿ, maxDelay)` — 5, 10, 20, … ms up to 1000 s by default.
 */
export function exponentialFailureRateLimiter(options: ExponentialFailureRateLimiterOptions = {}): RateLimiter {
  const base = checkDuration('baseDelayMs', options.baseDelayMs ?? 5);
  const max = checkDuration('maxDelayMs', options.maxDelayMs ?? 1_000_000);
  if (max < base) throw new RateLimiterOptionsError(`maxDelay (${max}) must be ≥ baseDelay (${base})`, { option: 'maxDelayMs' });
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      const delay = base * 2 ** n;
      return Number.isFinite(delay) && delay <= max ? delay : max;
    },
    forget(key) {
      failures.delete(key);
    },
    numRequeues(key) {
      return failures.get(key) ?? 0;
    },
  };
}
