import { Registry, register as globalRegistry } from 'prom-client';
import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { controllerMetrics, reflectorMetrics, workqueueMetrics } from '../../src/metrics/index.js';
import { RECONCILE_TIME_BUCKETS } from '../../src/metrics/controller-metrics.js';
import { WORKQUEUE_LATENCY_BUCKETS } from '../../src/metrics/workqueue-metrics.js';
import { managerMetrics } from '../../src/metrics/metrics-registry.js';
import { trackLeaderStatus } from '../../src/metrics/leader-election-metrics.js';

/** Value of one series in the exposition text, or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

describe('controllerMetrics (CR-6)', () => {
  it('pre-initialises every series to 0 and counts outcomes by result', async () => {
    const m = managerMetrics();
    m.controller.init('rs', 3);
    let text = await m.text();
    for (const r of ['error', 'requeue_after', 'requeue', 'success']) {
      expect(sample(text, `controller_runtime_reconcile_total{controller="rs",result="${r}"}`)).toBe(0);
    }
    expect(sample(text, 'controller_runtime_max_concurrent_reconciles{controller="rs"}')).toBe(3);
    expect(sample(text, 'controller_runtime_active_workers{controller="rs"}')).toBe(0);
    expect(sample(text, 'controller_runtime_terminal_reconcile_errors_total{controller="rs"}')).toBe(0);

    m.controller.reconciled('rs', { result: 'success', seconds: 0.003 });
    m.controller.reconciled('rs', { result: 'error', seconds: 0.2, terminal: true });
    m.controller.reconciled('rs', { result: 'error', seconds: 0.2, panic: true });
    m.controller.reconciled('rs', { result: 'requeue_after', seconds: 61 });
    m.controller.workerStarted('rs');
    m.controller.workerStarted('rs');
    m.controller.workerStopped('rs');
    text = await m.text();
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="success"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="error"}')).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="rs",result="requeue_after"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_errors_total{controller="rs"}')).toBe(2);
    expect(sample(text, 'controller_runtime_terminal_reconcile_errors_total{controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_panics_total{controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_active_workers{controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="rs"}')).toBe(4);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="rs"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="60",controller="rs"}')).toBe(3);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="+Inf",controller="rs"}')).toBe(4);
  });

  it('uses controller-runtime\'s bucket layout', () => {
    expect(RECONCILE_TIME_BUCKETS[0]).toBe(0.005);
    expect(RECONCILE_TIME_BUCKETS.at(-1)).toBe(60);
    expect(RECONCILE_TIME_BUCKETS).toHaveLength(40);
    expect([...RECONCILE_TIME_BUCKETS].sort((a, b) => a - b)).toEqual(RECONCILE_TIME_BUCKETS);
  });

  it('shares families when bound twice to one registry and never touches the global registry', async () => {
    const reg = new Registry();
    controllerMetrics(reg).init('a', 1);
    controllerMetrics(reg).init('b', 2);
    const text = await reg.metrics();
    expect(sample(text, 'controller_runtime_max_concurrent_reconciles{controller="a"}')).toBe(1);
    expect(sample(text, 'controller_runtime_max_concurrent_reconciles{controller="b"}')).toBe(2);
    expect(globalRegistry.getSingleMetric('controller_runtime_reconcile_total')).toBeUndefined();
  });
});

describe('workqueueMetrics (§6.4, MET-1)', () => {
  it('tracks depth, adds, latencies, retries and unfinished work under name/controller labels', async () => {
    const reg = new Registry();
    const q = workqueueMetrics(reg, { controller: 'rs' })('rs');
    q.adds();
    q.depth(1);
    q.adds();
    q.depth(2);
    q.depth(1);
    q.latency(50e-6);
    q.workDuration(25e-6);
    q.retries();
    q.unfinishedWorkSeconds(0.001);
    q.longestRunningProcessorSeconds(0.001);
    const text = await reg.metrics();
    const l = 'name="rs",controller="rs"';
    expect(sample(text, `workqueue_adds_total{${l}}`)).toBe(2);
    expect(sample(text, `workqueue_depth{${l},priority=""}`)).toBe(1);
    expect(sample(text, `workqueue_queue_duration_seconds_count{${l}}`)).toBe(1);
    expect(sample(text, `workqueue_queue_duration_seconds_sum{${l}}`)).toBeCloseTo(50e-6, 9);
    expect(sample(text, `workqueue_work_duration_seconds_sum{${l}}`)).toBeCloseTo(25e-6, 9);
    expect(sample(text, `workqueue_retries_total{${l}}`)).toBe(1);
    expect(sample(text, `workqueue_unfinished_work_seconds{${l}}`)).toBe(0.001);
    expect(sample(text, `workqueue_longest_running_processor_seconds{${l}}`)).toBe(0.001);
  });

  it('uses 12 exponential buckets from 10ns by 10', () => {
    expect(WORKQUEUE_LATENCY_BUCKETS).toEqual([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000]);
  });
});

describe('reflectorMetrics', () => {
  it('counts lists, items, watches, short watches, errors and the last RV', async () => {
    const reg = new Registry();
    const r = reflectorMetrics(reg);
    r.listed('pods', 3, '120');
    r.listed('pods', 2, 'not-a-number');
    r.watchStarted('pods');
    r.shortWatch('pods');
    r.failed('pods', 'watch');
    const text = await reg.metrics();
    expect(sample(text, 'reflector_lists_total{name="pods"}')).toBe(2);
    expect(sample(text, 'reflector_items_per_list_total{name="pods"}')).toBe(5);
    expect(sample(text, 'reflector_watches_total{name="pods"}')).toBe(1);
    expect(sample(text, 'reflector_short_watches_total{name="pods"}')).toBe(1);
    expect(sample(text, 'reflector_errors_total{name="pods",phase="watch"}')).toBe(1);
    expect(sample(text, 'reflector_last_resource_version{name="pods"}')).toBe(120);
  });
});

describe('trackLeaderStatus', () => {
  it('follows leading$ and drops to 0 when it ends', async () => {
    const reg = new Registry();
    const leading$ = new Subject<boolean>();
    const sub = trackLeaderStatus(reg, 'my-lock', leading$);
    const v = async () => sample(await reg.metrics(), 'leader_election_master_status{name="my-lock"}');
    expect(await v()).toBe(0);
    leading$.next(true);
    expect(await v()).toBe(1);
    leading$.next(false);
    expect(await v()).toBe(0);
    leading$.next(true);
    leading$.complete();
    expect(await v()).toBe(0);
    sub.unsubscribe();
    const sub2 = trackLeaderStatus(reg, 'other', new BehaviorSubject(true));
    expect(sample(await reg.metrics(), 'leader_election_master_status{name="other"}')).toBe(1);
    sub2.unsubscribe();
  });
});
