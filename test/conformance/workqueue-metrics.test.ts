/** docs/semantics.md §6.4 MET-1, through `KeyQueue` (counters) and `workQueue` (periodic gauges). */
import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { keyQueue, runQueue } from '../workqueue/harness.js';

describe('§6.4 metrics', () => {
  it('MET-1 adds/depth/latency/work/retries, and unfinished/longest every 500 ms, not after shutdown', () => {
    let adds = 0;
    let depth = 0;
    let retries = 0;
    const latency: number[] = [];
    const work: number[] = [];
    const { q, advance } = keyQueue({
      adds: () => adds++,
      depth: (d: number) => (depth = d),
      latency: (s: number) => latency.push(s),
      workDuration: (s: number) => work.push(s),
      retries: () => retries++,
    });
    // TestMetrics: add, 50 µs, get → latency 50 µs
    q.add('foo');
    expect([adds, depth]).toEqual([1, 1]);
    advance(0.05);
    const foo = q.get()!;
    expect(depth).toBe(0);
    // 5 duplicate re-adds while processing → adds 2, depth 1
    for (let i = 0; i < 5; i++) q.add('foo');
    expect([adds, depth]).toEqual([2, 1]);
    advance(0.025);
    q.done(foo);
    const again = q.get()!;
    expect(latency.map((s) => Math.round(s * 1e6))).toEqual([50, 25]);
    q.done(again);
    expect(work).toHaveLength(2);
    q.add('bar', undefined, 0);
    expect(retries).toBe(1);

    const gauges: string[] = [];
    let now = (): number => Number.NaN;
    const h = runQueue(
      {},
      {
        metrics: {
          unfinishedWorkSeconds: (s) => gauges.push(`u=${s}@${now()}`),
          longestRunningProcessorSeconds: (s) => gauges.push(`l=${s}@${now()}`),
        },
        shutdownGracePeriodMs: 1200,
      },
      (h) => {
        now = () => h.ts.now();
        h.input.next('a');
        h.at(1, () => h.input.complete());
      },
      () => NEVER,
    );
    // reported at 500 and 1000 while a runs; grace ends at 1201 → no report after shutdown
    expect(gauges).toEqual(['u=0.5@500', 'l=0.5@500', 'u=1@1000', 'l=1@1000']);
    expect(h.outcomes.map((o) => o.kind)).toEqual(['aborted']);
  });
});
