/** docs/semantics.md §8.2 CR-6 (with CR-1 counting): controller-runtime metrics recorded by a controller. */
import { Registry } from 'prom-client';
import { map, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { controller } from '../../src/controller/controller.js';
import { controllerMetrics, type ControllerMetricsRecorder } from '../../src/metrics/controller-metrics.js';
import { workqueueMetrics } from '../../src/metrics/workqueue-metrics.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import { TerminalError } from '../../src/workqueue/terminal-error.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const cm = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: '1' } });

/** Histogram values carry the series name (`…_bucket`, `…_count`). */
const metricName = (v: object): string => (v as { metricName?: string }).metricName ?? '';

async function value(registry: Registry, metric: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = await registry.getSingleMetric(metric)?.get();
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;
}

describe('CR-6 controller metrics', () => {
  it('pre-initialises every series to 0 and sets max_concurrent_reconciles when the workers start', async () => {
    const registry = new Registry();
    // metrics are initialised when the workers start (after the caches synced)
    const d = controller({ name: 'cr6-init2', for: fakeSource({ resource: CM }), concurrency: 3, metricsRegistry: registry, reconcile: () => undefined });
    const ac2 = new AbortController();
    const done2 = d.start(ac2.signal);
    await new Promise((r) => setTimeout(r, 10));
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(await value(registry, 'controller_runtime_reconcile_total', { controller: 'cr6-init2', result })).toBe(0);
    }
    expect(await value(registry, 'controller_runtime_reconcile_errors_total', { controller: 'cr6-init2' })).toBe(0);
    expect(await value(registry, 'controller_runtime_max_concurrent_reconciles', { controller: 'cr6-init2' })).toBe(3);
    expect(await value(registry, 'controller_runtime_active_workers', { controller: 'cr6-init2' })).toBe(0);
    ac2.abort();
    await done2;
  });

  it(
    'counts results, errors, terminal errors, reconcile time and active workers',
    marbles((m) => {
      const registry = new Registry();
      const active: number[] = [];
      // the registry-backed recorder, watched for worker starts/stops
      const recorder = controllerMetrics(registry);
      let workers = 0;
      const metrics: ControllerMetricsRecorder = {
        ...recorder,
        workerStarted: (name) => (workers++, recorder.workerStarted(name)),
        workerStopped: (name) => (workers--, recorder.workerStopped(name)),
      };
      const c = controller({
        name: 'cr6-count',
        for: fakeSource({ resource: CM, initial: [cm('ok'), cm('later'), cm('again'), cm('bad'), cm('fatal')] }),
        concurrency: 5,
        metrics,
        workqueueMetrics: workqueueMetrics(registry)('cr6-count'),
        scheduler: m.scheduler,
        reconcile: (req) =>
          timer(10).pipe(
            map(() => {
              switch (req.name) {
                case 'later':
                  return { requeueAfter: 1_000_000 };
                case 'again':
                  return { requeue: true };
                case 'bad':
                  throw new Error('transient');
                case 'fatal':
                  throw new TerminalError(new Error('bad spec'));
                default:
                  return undefined;
              }
            }),
          ),
      });
      const sub = c.run().subscribe();
      m.scheduler.schedule(() => void active.push(workers), 5);
      m.scheduler.schedule(() => sub.unsubscribe(), 12);
      m.flush();
      return (async () => {
        const total = (result: string) => value(registry, 'controller_runtime_reconcile_total', { controller: 'cr6-count', result });
        expect(await total('success')).toBe(1);
        expect(await total('requeue_after')).toBe(1);
        expect(await total('requeue')).toBe(1);
        expect(await total('error')).toBe(2);
        expect(await value(registry, 'controller_runtime_reconcile_errors_total', { controller: 'cr6-count' })).toBe(2);
        expect(await value(registry, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'cr6-count' })).toBe(1);
        const hist = await registry.getSingleMetric('controller_runtime_reconcile_time_seconds')?.get();
        const count = hist?.values.find((v) => metricName(v) === 'controller_runtime_reconcile_time_seconds_count');
        expect(count?.value).toBe(5);
        const le10ms = hist?.values.find((v) => metricName(v).endsWith('_bucket') && v.labels.le === 0.01);
        expect(le10ms?.value).toBe(5); // each took 10 virtual ms
        expect(active).toEqual([5]);
        expect(await value(registry, 'controller_runtime_active_workers', { controller: 'cr6-count' })).toBe(0);
        expect(await value(registry, 'workqueue_adds_total', { name: 'cr6-count' })).toBe(5);
      })();
    }),
  );
});
