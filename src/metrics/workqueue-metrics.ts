import type { Registry } from 'prom-client';
import { counterIn, exponentialBuckets, gaugeIn, histogramIn } from './metric-helpers.js';

/** Latency buckets of client-go's workqueue metrics: 10 ns × 10, 12 buckets (MET-1). */
export const WORKQUEUE_LATENCY_BUCKETS: readonly number[] = exponentialBuckets(10e-9, 10, 12);

/**
 * The per-queue hooks a workqueue calls (MET-1). All durations are in seconds.
 * - `added()` on every add that passed the dirty check (adds+1, depth+1)
 * - `taken(queueSeconds)` on get (depth−1, observe time since the first add)
 * - `done(workSeconds)` when processing finished
 * - `retried()` on every delayed re-add
 * - `unfinished(sumSeconds, longestSeconds)` on the periodic (500 ms) tick
 */
export interface WorkqueueMetricsSink {
  added(priority?: number): void;
  taken(queueSeconds: number, priority?: number): void;
  done(workSeconds: number): void;
  retried(): void;
  unfinished(unfinishedSeconds: number, longestRunningSeconds: number): void;
}

/** Creates the sink for one named queue. */
export type WorkqueueMetricsProvider = (queueName: string) => WorkqueueMetricsSink;

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
    const withPriority = (p: number | undefined) => ({ ...l, priority: String(p ?? '') });
    depth.set(withPriority(undefined), 0);
    adds.inc(l, 0);
    retries.inc(l, 0);
    unfinished.set(l, 0);
    longest.set(l, 0);
    return {
      added(priority) {
        adds.inc(l);
        depth.inc(withPriority(priority));
      },
      taken(queueSeconds, priority) {
        depth.dec(withPriority(priority));
        queueDuration.observe(l, queueSeconds);
      },
      done(workSeconds) {
        workDuration.observe(l, workSeconds);
      },
      retried() {
        retries.inc(l);
      },
      unfinished(unfinishedSeconds, longestRunningSeconds) {
        unfinished.set(l, unfinishedSeconds);
        longest.set(l, longestRunningSeconds);
      },
    };
  };
}
