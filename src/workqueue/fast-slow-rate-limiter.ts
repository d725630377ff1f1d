import { checkDuration, RateLimiterOptionsError, type RateLimiter } from './rate-limiter.js';

/** Options of {@link fastSlowRateLimiter}. */
export interface FastSlowRateLimiterOptions {
  /** Delay (ms) for the first `maxFastAttempts` retries. */
  readonly fastDelayMs: number;
  /** Delay (ms) for every later retry. */
  readonly slowDelayMs: number;
  /** How many retries use `fastDelay`. */
  readonly maxFastAttempts: number;
}

/** Per-key two-speed backoff (RL-4): `fastDelay` for the first `maxFastAttempts` retries, then `slowDelay`. */
export function fastSlowRateLimiter(options: FastSlowRateLimiterOptions): RateLimiter {
  const fast = checkDuration('fastDelayMs', options.fastDelayMs);
  const slow = checkDuration('slowDelayMs', options.slowDelayMs);
  const maxFast = options.maxFastAttempts;
  if (!Number.isInteger(maxFast) || maxFast < 0) {
    throw new RateLimiterOptionsError(`maxFastAttempts must be an integer ≥ 0, got ${maxFast}`, { option: 'maxFastAttempts' });
  }
  const attempts = new Map<string, number>();
  return {
    when(key) {
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      return n <= maxFast ? fast : slow;
    },
    forget(key) {
      attempts.delete(key);
    },
    numRequeues(key) {
      return attempts.get(key) ?? 0;
    },
  };
}
