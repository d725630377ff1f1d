import type { SchedulerLike } from 'rxjs';
import { bucketRateLimiter } from './bucket-rate-limiter.js';
import { exponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
import { maxOfRateLimiter } from './max-of-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * The work queue's default: per-key exponential backoff, 5 ms doubling to 1000 s. This is what
 * controller-runtime uses today (CR-4): since v0.23 controllers use the priority queue by
 * default, and with it the default limiter is the per-item exponential one alone. The work queue
 * follows the priority queue's semantics (PQ-1), so it takes the same default.
 */
export function defaultRateLimiter(): RateLimiter {
  return exponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 });
}

/**
 * client-go's `DefaultControllerRateLimiter` (RL-3), controller-runtime's default before v0.23
 * (and still with the priority queue turned off): the larger of per-key exponential backoff
 * (5 ms … 1000 s) and one token bucket for all keys (10/s, burst 100).
 */
export function defaultControllerRateLimiter(scheduler?: SchedulerLike): RateLimiter {
  return maxOfRateLimiter(
    exponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    bucketRateLimiter({ qps: 10, burst: 100, ...(scheduler ? { scheduler } : {}) }),
  );
}
