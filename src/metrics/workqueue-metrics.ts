import type { Registry } from 'prom-client';
import { counterIn, exponentialBuckets, gaugeIn, histogramIn } from './metric-helpers.js';

/** Latency buckets of client-go's workqueue metrics: 10 ns × 10, 12 buckets (MET-1). */
export const WORKQUEUE_LATENCY_BUCKETS: readonly number[] = exponentialBuckets(10e-9, 10, 12);

/**
 * The per-queue hooks a work queue calls (MET-1), structurally identical to the work queue's
 * `WorkQueueMetrics` (src/workqueue/metrics.ts) so one can be passed where the other is expected.
 * Times are seconds. `depth(n)` reports the absolute depth; `adds()` a key that became due;
 * `latency(s)` the time from add to hand-out; `workDuration(s)` one reconcile; the two
 * unfinished-work gauges every 500 ms; `retries()` a delayed requeue.
 */
export interface WorkqueueMetricsHooks {
  readonly depth: (depth: number) => void;
  readonly adds: () => void;
  readonly latency: (seconds: number) => void;
  readonly workDuration: (seconds: number) => void;
  readonly unfinishedWorkSeconds: (seconds: number) => void;
  readonly longestRunningProcessorSeconds: (seconds: number) => void;
  readonly retries: () => void;
}

/** Creates the hooks for one named queue. */
export type WorkqueueMetricsProvider = (queueName: string) => WorkqueueMetricsHooks;

/**
 * A {@link WorkqueueMetricsProvider} writing controller-runtime's workqueue families to `registry`:
 * `workqueue_depth{name,controller,priority}`, `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
 * `workqueue_work_duration_seconds`, `workqueue_unfinished_work_seconds`,
 * `workqueue_longest_running_processor_seconds`, `workqueue_retries_total` (labels `name`,
 * `controller`). `controller` defaults to the queue name, as controller-runtime names a
 * controller's queue after the controller.
 */
export function workqueueMetrics(registry: Registry, options: { readonly controller?: string } = {}): WorkqueueMetricsProvider {
  const labels = ['name', 'controller'] as const;
  const depth = gaugeIn(registry, 'workqueue_depth', 'Current depth of workqueue', [...labels, 'priority']);
  const adds = counterIn(registry, 'workqueue_adds_total', 'Total number of adds handled by workqueue', labels);
  const queueDuration = histogramIn(registry, 'workqueue_queue_duration_seconds',
    'How long in seconds an item stays in workqueue before being requested', labels, WORKQUEUE_LATENCY_BUCKETS);
  const workDuration = histogramIn(registry, 'workqueue_work_duration_seconds',
    'How long in seconds processing an item from workqueue takes', labels, WORKQUEUE_LATENCY_BUCKETS);
  const unfinished = gaugeIn(registry, 'workqueue_unfinished_work_seconds',
    'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration.',
    labels);
  const longest = gaugeIn(registry, 'workqueue_longest_running_processor_seconds',
    'How many seconds has the longest running processor for workqueue been running.', labels);
  const retries = counterIn(registry, 'workqueue_retries_total', 'Total number of retries handled by workqueue', labels);

  return (name) => {
    const l = { name, controller: options.controller ?? name };
    const depthLabels = { ...l, priority: '' };
    depth.set(depthLabels, 0);
    adds.inc(l, 0);
    retries.inc(l, 0);
    unfinished.set(l, 0);
    longest.set(l, 0);
    return {
      depth: (n) => depth.set(depthLabels, n),
      adds: () => adds.inc(l),
      latency: (s) => queueDuration.observe(l, s),
      workDuration: (s) => workDuration.observe(l, s),
      unfinishedWorkSeconds: (s) => unfinished.set(l, s),
      longestRunningProcessorSeconds: (s) => longest.set(l, s),
      retries: () => retries.inc(l),
    };
  };
}
