import type { Registry } from 'prom-client';
import { promClient } from './prom-client-module.js';
import type { ControllerMetricsRecorder } from './controller-metrics.js';
import { controllerMetrics } from './controller-metrics.js';
import type { ReflectorMetricsRecorder } from './reflector-metrics.js';
import { reflectorMetrics } from './reflector-metrics.js';
import type { RequestObserver } from '../client/request-outcome.js';
import { restClientMetrics } from './rest-client-metrics.js';

/** A per-manager Prometheus registry plus the recorders bound to it. */
export interface ManagerMetrics {
  /** The registry `/metrics` serves. Never prom-client's global registry. */
  readonly registry: Registry;
  readonly controller: ControllerMetricsRecorder;
  readonly reflector: ReflectorMetricsRecorder;
  /** Feeds `rest_client_*` (for `KubeConnection.observeRequests`). */
  readonly restClient: RequestObserver;
  /** The Prometheus text exposition of every metric in the registry. */
  text(): Promise<string>;
}

/** Creates a fresh {@link ManagerMetrics} (a new `Registry`, unless one is given). */
export function managerMetrics(registry: Registry = new (promClient().Registry)()): ManagerMetrics {
  return {
    registry,
    controller: controllerMetrics(registry),
    reflector: reflectorMetrics(registry),
    restClient: restClientMetrics(registry),
    text: () => registry.metrics(),
  };
}
