import { checkDuration, type RateLimiter } from './rate-limiter.js';

/** Caps another limiter's delay at `maxWait` ms (RL-5); counting and forgetting pass through. */
export function withMaxWaitRateLimiter(limiter: RateLimiter, maxWait: number): RateLimiter {
  const cap = checkDuration('maxWait', maxWait);
  return {
    when: (key) => Math.min(limiter.when(key), cap),
    forget: (key) => limiter.forget(key),
    numRequeues: (key) => limiter.numRequeues(key),
  };
}
