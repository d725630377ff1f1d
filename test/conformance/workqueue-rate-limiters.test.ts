/** docs/semantics.md §6.3 (rate limiters, rate-limiting queue), one test per rule. */
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { bucketRateLimiter } from '../../src/workqueue/bucket-rate-limiter.js';
import { defaultControllerRateLimiter } from '../../src/workqueue/default-rate-limiter.js';
import { exponentialFailureRateLimiter } from '../../src/workqueue/exponential-failure-rate-limiter.js';
import { fastSlowRateLimiter } from '../../src/workqueue/fast-slow-rate-limiter.js';
import { maxOfRateLimiter } from '../../src/workqueue/max-of-rate-limiter.js';
import type { RateLimiter } from '../../src/workqueue/rate-limiter.js';
import { withMaxWaitRateLimiter } from '../../src/workqueue/with-max-wait-rate-limiter.js';
import { runQueue } from '../workqueue/harness.js';

const times = (l: RateLimiter, key: string, n: number) => Array.from({ length: n }, () => l.when(key));

describe('§6.3 rate limiters', () => {
  it('RL-1 per-item exponential: base·2ⁿ capped, overflow-safe, forget resets', () => {
    const l = exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1_000_000 });
    expect(times(l, 'one', 5)).toEqual([1, 2, 4, 8, 16]);
    expect(l.numRequeues('one')).toBe(5);
    l.forget('one');
    expect(l.numRequeues('one')).toBe(0);
    expect(l.when('one')).toBe(1);
    const o = exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1_000_000 });
    expect(times(o, 'k', 6)[5]).toBe(32);
    expect(times(o, 'k', 1000).at(-1)).toBe(1_000_000);
    const minute = exponentialFailureRateLimiter({ baseDelayMs: 60_000, maxDelayMs: 1_000_000 });
    expect(times(minute, 'k', 3)[2]).toBe(240_000);
    const ctrl = exponentialFailureRateLimiter(); // controller defaults 5 ms … 1000 s
    const d = times(ctrl, 'k', 20);
    expect([d[0], d[1], d[2], d[17], d[18], d[19]]).toEqual([5, 10, 20, 655_360, 1_000_000, 1_000_000]);
  });

  it('RL-2 token bucket: 100 free, then 100 ms, 200 ms, …; shared by all items; no per-item state', () => {
    const s = new VirtualTimeScheduler();
    const l = bucketRateLimiter({ scheduler: s });
    const first = Array.from({ length: 100 }, (_, i) => l.when(`k${i}`));
    expect(first.every((d) => d === 0)).toBe(true);
    expect([l.when('a'), l.when('b'), l.when('a')]).toEqual([100, 200, 300]);
    expect(l.numRequeues('a')).toBe(0);
    l.forget('a');
    expect(l.when('c')).toBe(400);
  });

  it('RL-3 max-of: every limiter is consulted, max wins; default controller limiter = max(exp 5ms, bucket 10/100)', () => {
    const s = new VirtualTimeScheduler();
    const l = maxOfRateLimiter(
      fastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 3000, maxFastAttempts: 3 }),
      exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
    );
    expect(times(l, 'one', 4)).toEqual([5, 5, 5, 3000]);
    expect(l.numRequeues('one')).toBe(4);
    l.forget('one');
    expect(l.numRequeues('one')).toBe(0);
    const d = defaultControllerRateLimiter(s);
    expect(times(d, 'x', 3)).toEqual([5, 10, 20]); // exponential dominates
    const burst = Array.from({ length: 98 }, (_, i) => d.when(`k${i}`)); // bucket: 3 + 98 = 101 tokens
    expect(burst.at(-1)).toBe(100);
  });

  it('RL-4 fast-slow: increments first; count ≤ maxFast → fast, else slow', () => {
    const l = fastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 10_000, maxFastAttempts: 3 });
    expect(times(l, 'one', 5)).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(l.numRequeues('one')).toBe(5);
    l.forget('one');
    expect(l.when('one')).toBe(5);
  });

  it('RL-5 with-max-wait caps the delay', () => {
    const l = withMaxWaitRateLimiter(exponentialFailureRateLimiter({ baseDelayMs: 1000, maxDelayMs: 1_000_000 }), 5000);
    expect(times(l, 'k', 5)).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(l.numRequeues('k')).toBe(5);
  });

  it('RL-6 rate-limited requeue: addAfter(when); forget resets; the limiter is consulted even while shutting down', () => {
    const l = exponentialFailureRateLimiter({ baseDelayMs: 1 });
    const err = { ms: 0, error: new Error('x') };
    // errors at 0, 1, 3 → delays 1 ms, 2 ms, 4 ms; success forgets → next error waits 1 ms again
    const h = runQueue({ a: [err, err, { ms: 0 }, err, { ms: 0 }] }, { rateLimiter: l }, (h) => {
      h.input.next('a');
      h.at(100, () => h.input.next('a'));
    });
    expect(h.calls).toEqual(['a@0', 'a@1', 'a@3', 'a@100', 'a@101']);
    expect(l.numRequeues('a')).toBe(0);
    const during = exponentialFailureRateLimiter();
    runQueue({ a: [{ ms: 10, error: new Error('late') }] }, { rateLimiter: during }, (h) => {
      h.input.next('a');
      h.at(5, () => h.input.complete());
    });
    expect(during.numRequeues('a')).toBe(1);
  });
});
