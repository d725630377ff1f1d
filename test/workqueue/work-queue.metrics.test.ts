import { map, Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { workQueue } from '../../src/workqueue/work-queue.js';
import { WORKQUEUE_METRIC_NAMES, type WorkQueueMetrics } from '../../src/workqueue/metrics.js';

describe('workQueue metrics hooks', () => {
  it('reports depth, adds, latency, work duration, retries and unfinished work in virtual time', () => {
    const events: string[] = [];
    const gauges: string[] = [];
    const metrics: WorkQueueMetrics = {
      adds: () => events.push(`add@${ts.now()}`),
      depth: (d) => events.push(`depth=${d}@${ts.now()}`),
      latency: (s) => events.push(`latency=${s}`),
      workDuration: (s) => events.push(`work=${s}`),
      retries: () => events.push(`retry@${ts.now()}`),
      unfinishedWorkSeconds: (s) => gauges.push(`unfinished=${s}@${ts.now()}`),
      longestRunningProcessorSeconds: (s) => gauges.push(`longest=${s}@${ts.now()}`),
    };
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(() => {
      const input = new Subject<string>();
      let n = 0;
      input
        .pipe(
          workQueue(
            () => {
              n++;
              return timer(n === 1 ? 1200 : 10).pipe(
                map(() => {
                  if (n === 2) throw new Error('retry me');
                  return undefined;
                }),
              );
            },
            { concurrency: 2, metrics },
          ),
        )
        .subscribe();
      input.next('a');
      ts.schedule(() => input.next('b'), 100);
      ts.flush();
    });
    expect(events).toEqual([
      'add@0',
      'depth=1@0',
      'depth=0@0',
      'latency=0',
      'add@100',
      'depth=1@100',
      'depth=0@100',
      'latency=0',
      'retry@110', // b failed: rate-limited requeue (5 ms)
      'work=0.01',
      'add@115',
      'depth=1@115',
      'depth=0@115',
      'latency=0',
      'work=0.01',
      'work=1.2',
    ]);
    expect(gauges).toEqual([
      'unfinished=0.5@500',
      'longest=0.5@500',
      'unfinished=1@1000',
      'longest=1@1000',
      'unfinished=0@1500',
      'longest=0@1500',
    ]);
  });

  it('names the hooks with the Prometheus names', () => {
    expect(WORKQUEUE_METRIC_NAMES.depth).toBe('workqueue_depth');
    expect(Object.values(WORKQUEUE_METRIC_NAMES)).toHaveLength(7);
  });
});
