import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { WorkQueueMetrics } from '../../src/workqueue/metrics.js';
import type { ReconcileOutcome, ReconcileOutcomeKind } from '../../src/workqueue/reconcile-result.js';
import { controllerMetrics, workqueueMetrics } from '../../src/metrics/index.js';
import { recordReconcileMetrics } from '../../src/metrics/record-reconcile-metrics.js';
import { marbles } from '../helpers/marbles.js';

const outcome = (kind: ReconcileOutcomeKind, duration = 10, timedOut = false): ReconcileOutcome => ({
  key: 'ns/a',
  request: { namespace: 'ns', name: 'a' },
  kind,
  attempt: 1,
  startedAt: 0,
  duration,
  timedOut,
});

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('recordReconcileMetrics', () => {
  it(
    'passes outcomes through unchanged',
    marbles((m) => {
      const reg = new Registry();
      const values = { s: outcome('success'), e: outcome('error'), t: outcome('terminal_error'), a: outcome('aborted') };
      const source = m.cold('-s--e--t--a-|', values);
      m.expect(source.pipe(recordReconcileMetrics(controllerMetrics(reg), 'rs'))).toBeObservable('-s--e--t--a-|', values);
    }),
  );

  it('counts results, terminal errors, timeouts and durations; ignores aborted', async () => {
    const reg = new Registry();
    const { from } = await import('rxjs');
    const seen: string[] = [];
    from([outcome('success', 3), outcome('error', 200, true), outcome('terminal_error'), outcome('aborted'), outcome('requeue_after')])
      .pipe(recordReconcileMetrics(controllerMetrics(reg), 'rs', 4))
      .subscribe((o) => seen.push(o.kind));
    expect(seen).toHaveLength(5);
    const text = await reg.metrics();
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="success"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="error"}')).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="requeue_after"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="requeue"}')).toBe(0);
    expect(sample(text, 'controller_runtime_terminal_reconcile_errors_total{controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_timeouts_total{controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="rs"}')).toBe(4);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_max_concurrent_reconciles{controller="rs"}')).toBe(4);
  });

  it('workqueue hooks are assignable to the work queue\'s WorkQueueMetrics', () => {
    const hooks: WorkQueueMetrics = workqueueMetrics(new Registry())('q');
    expect(Object.keys(hooks).sort()).toEqual(
      ['adds', 'depth', 'latency', 'longestRunningProcessorSeconds', 'retries', 'unfinishedWorkSeconds', 'workDuration'],
    );
  });
});
