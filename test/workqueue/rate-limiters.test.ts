import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { bucketRateLimiter } from '../../src/workqueue/bucket-rate-limiter.js';
import { defaultControllerRateLimiter, defaultRateLimiter } from '../../src/workqueue/default-rate-limiter.js';
import { exponentialFailureRateLimiter } from '../../src/workqueue/exponential-failure-rate-limiter.js';
import { fastSlowRateLimiter } from '../../src/workqueue/fast-slow-rate-limiter.js';
import { maxOfRateLimiter } from '../../src/workqueue/max-of-rate-limiter.js';
import { RateLimiterOptionsError } from '../../src/workqueue/rate-limiter.js';
import { withMaxWaitRateLimiter } from '../../src/workqueue/with-max-wait-rate-limiter.js';

describe('rate limiters', () => {
  it('exponential: doubles per key from the base up to the max, forget resets', () => {
    const l = exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 10 });
    expect([1, 2, 3, 4, 5].map(() => l.when('a'))).toEqual([1, 2, 4, 8, 10]);
    expect(l.when('b')).toBe(1);
    expect(l.numRequeues('a')).toBe(5);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(l.when('a')).toBe(1);
  });

  it('exponential: defaults are 5 ms … 1000 s and overflow-safe', () => {
    const l = exponentialFailureRateLimiter();
    const delays = Array.from({ length: 2000 }, () => l.when('a'));
    expect(delays.slice(0, 3)).toEqual([5, 10, 20]);
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[1999]).toBe(1_000_000);
  });

  it('bucket: burst then one token per 1/qps, refilled over time', () => {
    const s = new VirtualTimeScheduler();
    const l = bucketRateLimiter({ qps: 10, burst: 3, scheduler: s });
    expect([0, 0, 0, 0, 0].map(() => l.when('x'))).toEqual([0, 0, 0, 100, 200]);
    s.schedule(() => undefined, 1000);
    s.flush();
    // 10 tokens refilled, capped at the burst of 3, minus the 2 borrowed
    expect(l.when('y')).toBe(0);
    expect(l.numRequeues('y')).toBe(0);
  });

  it('max-of: asks every limiter and returns the largest delay', () => {
    const s = new VirtualTimeScheduler();
    const l = maxOfRateLimiter(exponentialFailureRateLimiter({ baseDelayMs: 5 }), bucketRateLimiter({ qps: 1, burst: 3, scheduler: s }));
    expect([0, 0, 0, 0].map(() => l.when('a'))).toEqual([5, 10, 20, 1000]);
    expect(l.numRequeues('a')).toBe(4);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
  });

  it('fast-slow, with-max-wait', () => {
    const fs = fastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 10_000, maxFastAttempts: 3 });
    expect([0, 0, 0, 0, 0].map(() => fs.when('a'))).toEqual([5, 5, 5, 10_000, 10_000]);
    fs.forget('a');
    expect(fs.when('a')).toBe(5);
    const capped = withMaxWaitRateLimiter(exponentialFailureRateLimiter({ baseDelayMs: 100 }), 250);
    expect([0, 0, 0].map(() => capped.when('a'))).toEqual([100, 200, 250]);
    expect(capped.numRequeues('a')).toBe(3);
  });

  it('defaults', () => {
    expect([0, 0].map(() => defaultRateLimiter().when('a'))).toEqual([5, 5]);
    const s = new VirtualTimeScheduler();
    const d = defaultControllerRateLimiter(s);
    const delays = Array.from({ length: 101 }, (_, i) => d.when(`k${i}`));
    expect(delays.slice(0, 100).every((x) => x === 5)).toBe(true);
    expect(delays[100]).toBe(100);
  });

  it('rejects bad parameters', () => {
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: -1 })).toThrow(RateLimiterOptionsError);
    expect(() => exponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1 })).toThrow(RateLimiterOptionsError);
    expect(() => bucketRateLimiter({ qps: 0 })).toThrow(RateLimiterOptionsError);
    expect(() => bucketRateLimiter({ burst: 0.5 })).toThrow(RateLimiterOptionsError);
    expect(() => maxOfRateLimiter()).toThrow(RateLimiterOptionsError);
    expect(() => fastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: 2, maxFastAttempts: -1 })).toThrow(RateLimiterOptionsError);
    expect(() => withMaxWaitRateLimiter(defaultRateLimiter(), Number.NaN)).toThrow(RateLimiterOptionsError);
  });
});
