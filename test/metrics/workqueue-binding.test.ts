import { Registry } from 'prom-client';
import { concat, lastValueFrom, of, timer, toArray, ignoreElements } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { workQueue } from '../../src/workqueue/work-queue.js';
import { workqueueMetrics } from '../../src/metrics/index.js';
import { managerMetrics } from '../../src/metrics/metrics-registry.js';
import { recordReconcileMetrics } from '../../src/metrics/record-reconcile-metrics.js';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics bound to the real workQueue operator', () => {
  it('records workqueue_* and controller_runtime_* series for a controller', async () => {
    const m = managerMetrics(new Registry());
    const hooks = workqueueMetrics(m.registry, { controller: 'rs' })('rs');
    let calls = 0;
    const input = concat(of('ns/a', 'ns/b', 'ns/a'), timer(20).pipe(ignoreElements()));
    const outcomes = await lastValueFrom(
      input.pipe(
        workQueue(() => {
          calls++;
          if (calls === 1) throw new Error('boom');
          return {};
        }, { metrics: hooks }),
        recordReconcileMetrics(m.controller, 'rs'),
        toArray(),
      ),
    );
    expect(outcomes.length).toBeGreaterThanOrEqual(2);
    const text = await m.text();
    const l = 'name="rs",controller="rs"';
    expect(sample(text, `workqueue_adds_total{${l}}`)).toBeGreaterThanOrEqual(2);
    expect(sample(text, `workqueue_work_duration_seconds_count{${l}}`)).toBe(outcomes.length);
    expect(sample(text, `workqueue_retries_total{${l}}`)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="error"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="success"}')).toBe(outcomes.length - 1);
  });
});
