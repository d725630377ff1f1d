import { Registry } from 'prom-client';
import type { ControllerMetricsRecorder } from './controller-metrics.js';
import { controllerMetrics } from './controller-metrics.js';
import type { ReflectorMetricsRecorder } from './reflector-metrics.js';
import { reflectorMetrics } from './reflector-metrics.js';

/** A per-manager Prometheus registry plus the recorders bound to it. */
export interface ManagerMetrics {
  /** The registry `/metrics` serves. Never prom-client's global registry. */
  readonly registry: Registry;
  readonly controller: ControllerMetricsRecorder;
  readonly reflector: ReflectorMetricsRecorder;
  /** The Prometheus text exposition of every metric in the registry. */
  text(): Promise<string>;
}

/** Creates a fresh {@link ManagerMetrics} (a new `Registry`, unless one is given). */
export function managerMetrics(registry: Registry = new Registry()): ManagerMetrics {
  return {
    registry,
    controller: controllerMetrics(registry),
    reflector: reflectorMetrics(registry),
    text: () => registry.metrics(),
  };
}
