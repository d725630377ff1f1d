import type { Registry } from 'prom-client';
import { counterIn, gaugeIn, histogramIn } from './metric-helpers.js';

/** Outcome label of `controller_runtime_reconcile_total` (CR-1). */
export type ReconcileResultLabel = 'error' | 'requeue_after' | 'requeue' | 'success';

/** The reconcile-time buckets of controller-runtime (CR-6), in seconds. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * What a controller reports about its reconciles (CR-1, CR-2, CR-3, CR-6). The controller calls
 * `init` once at start, then one `reconciled` per reconcile, plus `workerStarted`/`workerStopped`.
 */
export interface ControllerMetricsRecorder {
  /** Pre-initialises every series of `controller` to 0 and sets max_concurrent_reconciles. */
  init(controller: string, maxConcurrentReconciles: number): void;
  /** One finished reconcile: its outcome and duration; `terminal`/`panic`/`timeout` flag error kinds. */
  reconciled(
    controller: string,
    outcome: {
      readonly result: ReconcileResultLabel;
      readonly seconds: number;
      readonly terminal?: boolean;
      readonly panic?: boolean;
      readonly timeout?: boolean;
    },
  ): void;
  workerStarted(controller: string): void;
  workerStopped(controller: string): void;
  /** How many of the controller's reconciles run longer than its stuck threshold (rxkube's own gauge). */
  stuckReconciles?(controller: string, count: number): void;
  /**
   * Multi-cluster controllers only: one finished reconcile of `cluster` (the per-cluster
   * breakdown of `reconciled`, in a family of its own so single-cluster series keep their labels).
   */
  clusterReconciled?(controller: string, cluster: string, result: ReconcileResultLabel): void;
  /** Multi-cluster controllers over a changing fleet: how many clusters are syncing and serving. */
  clusters?(controller: string, counts: { readonly syncing: number; readonly serving: number }): void;
  /** A cluster left a multi-cluster controller's fleet: its per-cluster series are removed. */
  clusterLeft?(controller: string, cluster: string): void;
}

/**
 * A {@link ControllerMetricsRecorder} backed by controller-runtime's metric families in `registry`:
 * `controller_runtime_reconcile_total{controller,result}`, `…_reconcile_errors_total`,
 * `…_terminal_reconcile_errors_total`, `…_reconcile_panics_total`, `…_reconcile_timeouts_total`,
 * `…_reconcile_time_seconds` (CR-6 buckets), `…_max_concurrent_reconciles`, `…_active_workers`.
 * Calling it twice on one registry shares the same families.
 */
export function controllerMetrics(registry: Registry): ControllerMetricsRecorder {
  const total = counterIn(registry, 'controller_runtime_reconcile_total',
    'Total number of reconciliations per controller', ['controller', 'result']);
  const errors = counterIn(registry, 'controller_runtime_reconcile_errors_total',
    'Total number of reconciliation errors per controller', ['controller']);
  const terminal = counterIn(registry, 'controller_runtime_terminal_reconcile_errors_total',
    'Total number of terminal reconciliation errors per controller', ['controller']);
  const panics = counterIn(registry, 'controller_runtime_reconcile_panics_total',
    'Total number of reconciliation panics per controller', ['controller']);
  const timeouts = counterIn(registry, 'controller_runtime_reconcile_timeouts_total',
    'Total number of reconciliation timeouts per controller', ['controller']);
  const time = histogramIn(registry, 'controller_runtime_reconcile_time_seconds',
    'Length of time per reconciliation per controller', ['controller'], RECONCILE_TIME_BUCKETS);
  const maxConcurrent = gaugeIn(registry, 'controller_runtime_max_concurrent_reconciles',
    'Maximum number of concurrent reconciles per controller', ['controller']);
  const active = gaugeIn(registry, 'controller_runtime_active_workers',
    'Number of currently used workers per controller', ['controller']);
  const stuck = gaugeIn(registry, 'rxkube_controller_stuck_reconciles',
    'Number of reconciles running longer than the controller\'s stuck threshold', ['controller']);

  // Multi-cluster families, registered on first use: a registry without multi-cluster controllers
  // never has them, and a departed cluster's series are removed (cardinality: live clusters × results).
  const byCluster = (): ReturnType<typeof counterIn<'controller' | 'cluster' | 'result'>> =>
    counterIn(registry, 'rxkube_multicluster_reconcile_total', 'Total number of reconciliations per controller and cluster (multi-cluster controllers)', ['controller', 'cluster', 'result']);
  const clusterCount = (): ReturnType<typeof gaugeIn<'controller' | 'state'>> =>
    gaugeIn(registry, 'rxkube_multicluster_clusters', 'Clusters of a multi-cluster controller over a changing fleet, by state (syncing, serving)', ['controller', 'state']);

  return {
    init(controller, maxConcurrentReconciles) {
      for (const result of ['error', 'requeue_after', 'requeue', 'success'] as const) {
        total.inc({ controller, result }, 0);
      }
      errors.inc({ controller }, 0);
      terminal.inc({ controller }, 0);
      panics.inc({ controller }, 0);
      timeouts.inc({ controller }, 0);
      active.set({ controller }, 0);
      stuck.set({ controller }, 0);
      maxConcurrent.set({ controller }, maxConcurrentReconciles);
    },
    reconciled(controller, outcome) {
      total.inc({ controller, result: outcome.result });
      time.observe({ controller }, outcome.seconds);
      if (outcome.result === 'error') {
        errors.inc({ controller });
        if (outcome.terminal) terminal.inc({ controller });
      }
      if (outcome.panic) panics.inc({ controller });
      if (outcome.timeout) timeouts.inc({ controller });
    },
    workerStarted(controller) {
      active.inc({ controller });
    },
    workerStopped(controller) {
      active.dec({ controller });
    },
    stuckReconciles(controller, count) {
      stuck.set({ controller }, count);
    },
    clusterReconciled(controller, cluster, result) {
      byCluster().inc({ controller, cluster, result });
    },
    clusters(controller, counts) {
      const g = clusterCount();
      g.set({ controller, state: 'syncing' }, counts.syncing);
      g.set({ controller, state: 'serving' }, counts.serving);
    },
    clusterLeft(controller, cluster) {
      if (registry.getSingleMetric('rxkube_multicluster_reconcile_total') === undefined) return;
      const c = byCluster();
      for (const result of ['error', 'requeue_after', 'requeue', 'success'] as const) c.remove({ controller, cluster, result });
    },
  };
}
