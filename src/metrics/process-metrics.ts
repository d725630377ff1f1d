import type { Registry } from 'prom-client';
import { promClient } from './prom-client-module.js';

/** prom-client's default metrics, collected once per process and shared by every registry that asks. */
let shared: Registry | undefined;

/**
 * Adds prom-client's default process and Node.js metrics (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `nodejs_eventloop_lag_seconds`, `nodejs_heap_size_used_bytes`,
 * `nodejs_gc_duration_seconds`, …) to `registry`. They are collected once per process (the event
 * loop and GC monitors start on the first call and are shared), so any number of managers costs
 * nothing more; metrics whose names `registry` already has are left alone.
 */
export function processMetrics(registry: Registry): void {
  if (shared === undefined) {
    shared = new (promClient().Registry)();
    promClient().collectDefaultMetrics({ register: shared });
  }
  for (const { name } of shared.getMetricsAsArray()) {
    const metric = shared.getSingleMetric(name);
    if (metric !== undefined && registry.getSingleMetric(name) === undefined) registry.registerMetric(metric);
  }
}
