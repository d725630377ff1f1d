import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { RateLimiterOptionsError, type RateLimiter } from './rate-limiter.js';

/** Options of {@link bucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Tokens added per second. Default 10. */
  readonly qps?: number;
  /** Bucket size (tokens available at once). Default 100. */
  readonly burst?: number;
  /** Clock (`now()`), default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * One token bucket shared by all keys (RL-2, like Go's `rate.Limiter.Reserve`): each `when`
 * takes a token and returns how long until that token exists. With the defaults (10/s, burst
 * 100) the first 100 calls at one instant return 0, then 100 ms, 200 ms, …. It does not track
 * keys: `numRequeues` is always 0 and `forget` does nothing.
 */
export function bucketRateLimiter(options: BucketRateLimiterOptions = {}): RateLimiter {
  const qps = options.qps ?? 10;
  const burst = options.burst ?? 100;
  if (!(qps > 0) || !Number.isFinite(qps)) throw new RateLimiterOptionsError(`qps must be a finite number > 0, got ${qps}`, { option: 'qps' });
  if (!Number.isInteger(burst) || burst < 1) throw new RateLimiterOptionsError(`burst must be an integer ≥ 1, got ${burst}`, { option: 'burst' });
  const scheduler = options.scheduler ?? asyncScheduler;
  let tokens = burst;
  let last = scheduler.now();
  return {
    when() {
      const now = scheduler.now();
      if (now > last) {
        tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
        last = now;
      }
      tokens -= 1;
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
    },
    forget() {},
    numRequeues() {
      return 0;
    },
  };
}
