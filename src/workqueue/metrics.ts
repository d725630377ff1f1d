/**
 * Work queue metric hooks, one per client-go `MetricsProvider` metric. Every hook is optional;
 * the manager binds them to prom-client under {@link WORKQUEUE_METRIC_NAMES}. Times are seconds.
 * Semantics follow MET-1:
 * - `depth(n)`: the number of keys waiting to be handed out, including keys re-added while being
 *   reconciled (held until they finish); keys waiting for a future requeue time are not counted.
 * - `adds()`: a key became due (an add that passed the "already queued" check).
 * - `latency(s)`: time from that add until a worker took the key.
 * - `workDuration(s)`: how long one reconcile ran.
 * - `unfinishedWorkSeconds(s)` / `longestRunningProcessorSeconds(s)`: sum and max age of running
 *   reconciles, every 500 ms while any runs (then once more with 0).
 * - `retries()`: a requeue with a delay (rate-limited or `requeueAfter`).
 */
export interface WorkQueueMetrics {
  readonly depth?: (depth: number) => void;
  readonly adds?: () => void;
  readonly latency?: (seconds: number) => void;
  readonly workDuration?: (seconds: number) => void;
  readonly unfinishedWorkSeconds?: (seconds: number) => void;
  readonly longestRunningProcessorSeconds?: (seconds: number) => void;
  readonly retries?: () => void;
}

/** Prometheus names (controller-runtime / client-go) for each hook of {@link WorkQueueMetrics}. */
export const WORKQUEUE_METRIC_NAMES: Readonly<Record<keyof WorkQueueMetrics, string>> = Object.freeze({
  depth: 'workqueue_depth',
  adds: 'workqueue_adds_total',
  latency: 'workqueue_queue_duration_seconds',
  workDuration: 'workqueue_work_duration_seconds',
  unfinishedWorkSeconds: 'workqueue_unfinished_work_seconds',
  longestRunningProcessorSeconds: 'workqueue_longest_running_processor_seconds',
  retries: 'workqueue_retries_total',
});

/** How often (ms) unfinished work and longest running processor are reported. */
export const UNFINISHED_WORK_UPDATE_PERIOD = 500;
