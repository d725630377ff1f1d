import type { Registry } from 'prom-client';
import { runnableDeps, type RunnableDeps } from '../api/runnable.js';
import { KUBE_CLIENT_KEY } from '../client/client-key.js';
import type { KubeClient } from '../client/kube-client.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { EVENT_RECORDERS_KEY } from '../events/recorder-key.js';
import { INFORMER_MONITOR_KEY, type InformerMonitor } from '../informer/informer-monitor.js';
import type { Logger } from '../logging/logger.js';
import { LOGGER_KEY } from '../logging/logger-key.js';
import { METRICS_REGISTRY_KEY } from '../metrics/registry-key.js';

/** The parts a manager shares with what is added to it. */
export interface ManagerParts {
  readonly logger: Logger;
  readonly registry: Registry;
  /** The manager's client, or undefined when it has none. */
  readonly client: () => KubeClient | undefined;
  readonly getEventRecorder: (component: string) => EventRecorder;
  readonly monitor: InformerMonitor;
}

/** Builds the {@link RunnableDeps} the manager hands to a runnable named `name` on `add`. */
export function managerDeps(parts: ManagerParts): (name: string) => RunnableDeps {
  const map = new Map<symbol, () => unknown>([
    [LOGGER_KEY.id, () => parts.logger],
    [METRICS_REGISTRY_KEY.id, () => parts.registry],
    [KUBE_CLIENT_KEY.id, () => parts.client()],
    [EVENT_RECORDERS_KEY.id, () => (parts.client() === undefined ? undefined : parts.getEventRecorder)],
    [INFORMER_MONITOR_KEY.id, () => parts.monitor],
  ]);
  return (name) => runnableDeps(name, map);
}
