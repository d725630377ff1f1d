/** docs/semantics.md §6.2 (delaying queue), one test per rule, through `workQueue` in virtual time. */
import { describe, expect, it } from 'vitest';
import { keyQueue, runQueue } from '../workqueue/harness.js';

describe('§6.2 delaying queue', () => {
  it('DQ-1 addAfter: counts a retry even for d ≤ 0; d ≤ 0 adds at once; ignored when shutting down', () => {
    let retries = 0;
    const h = runQueue({}, { metrics: { retries: () => retries++ } }, (h) => {
      h.input.next({ request: 'now', after: 0 });
      h.input.next({ request: 'neg', after: -5 });
      h.input.next({ request: 'later', after: 50 });
    });
    expect(h.calls).toEqual(['now@0', 'neg@1', 'later@50']);
    expect(retries).toBe(3);
    const { q } = keyQueue();
    q.shutDown();
    expect(q.add('x', undefined, 10)).toBe(false);
    expect(q.nextReadyAt()).toBeUndefined();
  });

  it('DQ-2 earliest ready time wins, ready keys fire in ready-time order, shutdown drops scheduled keys', () => {
    // TestDeduping: 50 ms then 70 ms → once at 50; 50 then 30 → once at 30
    const dedup = runQueue({}, {}, (h) => {
      h.input.next({ request: 'a', after: 50 });
      h.input.next({ request: 'a', after: 70 });
      h.input.next({ request: 'b', after: 50 });
      h.input.next({ request: 'b', after: 30 });
    });
    expect(dedup.calls).toEqual(['b@30', 'a@50']);
    // TestCopyShifting: 1 s, 500 ms, 250 ms → 250, 500, 1 s
    const order = runQueue({}, {}, (h) => {
      h.input.next({ request: 'x', after: 1000 });
      h.input.next({ request: 'y', after: 500 });
      h.input.next({ request: 'z', after: 250 });
    });
    expect(order.calls).toEqual(['z@250', 'y@500', 'x@1000']);
    // shutdown drops the scheduled key
    const dropped = runQueue({}, { drain: true }, (h) => {
      h.input.next({ request: 'late', after: 100 });
      h.at(10, () => h.input.complete());
    });
    expect(dropped.calls).toEqual([]);
    expect(dropped.completed).toBe(true);
    expect(dropped.ts.now()).toBe(10);
  });
});
