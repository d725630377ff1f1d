import { RateLimiterOptionsError, type RateLimiter } from './rate-limiter.js';

/**
 * Combines limiters (RL-3): `when` asks every limiter (each records the attempt) and returns the
 * longest delay; `numRequeues` is the largest count; `forget` reaches all of them.
 */
export function maxOfRateLimiter(...limiters: RateLimiter[]): RateLimiter {
  if (limiters.length === 0) throw new RateLimiterOptionsError('maxOfRateLimiter needs at least one limiter', { option: 'limiters' });
  return {
    when(key) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.when(key));
      return max;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    numRequeues(key) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.numRequeues(key));
      return max;
    },
  };
}
