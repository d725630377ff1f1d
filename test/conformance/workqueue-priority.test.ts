/** docs/semantics.md §8.3 PQ-1 (priority queue semantics), through `KeyQueue` and `workQueue`. */
import { describe, expect, it } from 'vitest';
import { exponentialFailureRateLimiter } from '../../src/workqueue/exponential-failure-rate-limiter.js';
import { keyQueue, runQueue, takeAll } from '../workqueue/harness.js';

describe('§8.3 priority queue', () => {
  it('PQ-1 dedup, max priority, min ready time, priority order, locked items held, len counts ready only, rateLimited = min(after, when)', () => {
    const { q, advance } = keyQueue();
    // de-duplicates; retains the highest priority; will not decrease it
    q.add('a', undefined, undefined, 1);
    q.add('a', undefined, undefined, 5);
    q.add('a', undefined, undefined, 0);
    expect([q.len, q.priorityOf('a')]).toEqual([1, 5]);
    // follows FIFO order in the new priority when the priority changes
    q.add('b', undefined, undefined, 5);
    q.add('c');
    q.add('c', undefined, undefined, 5); // raised: goes to the end of priority 5's FIFO
    q.add('d');
    expect(takeAll(q)).toEqual(['a', 'b', 'c', 'd']);
    // retains the lowest after; an item that is already ready stays ready; Len excludes non-ready items
    q.add('x', undefined, 100);
    q.add('x', undefined, 50);
    q.add('r');
    q.add('r', undefined, 100);
    expect(q.len).toBe(1);
    advance(50);
    q.promote();
    expect(takeAll(q)).toEqual(['r', 'x']);
    // doesn't return a locked item; enqueues it again after done
    q.add('l');
    const l = q.get()!;
    q.add('l', undefined, undefined, 3);
    expect(q.get()).toBeUndefined();
    q.done(l);
    expect(q.priorityOf('l')).toBe(3);
    expect(takeAll(q)).toEqual(['l']);

    // through the operator: rateLimited → after = min(after, limiter.when); retries count every add with after
    let retries = 0;
    const limiter = exponentialFailureRateLimiter({ baseDelayMs: 20 });
    const h = runQueue({}, { rateLimiter: limiter, metrics: { retries: () => retries++ } }, (h) => {
      h.input.next({ request: 'p', after: 100, rateLimited: true }); // min(100, 20) = 20
      h.input.next({ request: 'q', after: 10, rateLimited: true }); // min(10, 20) = 10
      h.input.next({ request: 'hi', after: 30, priority: 10 });
      h.input.next({ request: 'lo', after: 30 });
    });
    expect(h.calls).toEqual(['q@10', 'p@20', 'hi@30', 'lo@31']);
    expect(retries).toBe(4);
    expect(h.outcomes.find((o) => o.key === 'p')!.attempt).toBe(2); // the rateLimited add consulted the limiter once
    expect(limiter.numRequeues('p')).toBe(0); // then success forgot it
    // result.priority replaces the priority for the requeue
    const pr = runQueue(
      { a: [{ ms: 10, result: { requeueAfter: 1, priority: 7 } }, { ms: 1 }], b: [{ ms: 1 }] },
      {},
      (h) => {
        h.input.next('a');
        h.at(5, () => h.input.next({ request: 'b', priority: 5 }));
        h.at(5, () => h.input.next({ request: 'c', priority: 6 }));
      },
    );
    // a requeued at 11 with priority 7 jumps ahead of b (5) — but c (6) starts at 10 first
    expect(pr.calls).toEqual(['a@0', 'c@10', 'a@11', 'b@12']);
  });
});
