import { KUBE_CLIENT_KEY } from '../client/client-key.js';
import { EVENT_RECORDERS_KEY } from '../events/recorder-key.js';
import { INFORMER_MONITOR_KEY } from '../informer/informer-monitor.js';
import { LOGGER_KEY } from '../logging/logger-key.js';
import { METRICS_REGISTRY_KEY } from '../metrics/registry-key.js';

/**
 * The keys of what a manager shares with the runnables added to it, for `Runnable.inject`:
 *
 * ```ts
 * let log: Logger = noopLogger;
 * let janitorClient: KubeClient | undefined;
 * mgr.add({
 *   name: 'janitor',
 *   inject(deps) {
 *     log = deps.get(DEPS.logger)?.child({ runnable: 'janitor' }) ?? noopLogger;
 *     janitorClient = deps.get(DEPS.client);
 *   },
 *   start: (signal) => sweep(signal, janitorClient, log),
 * });
 * ```
 *
 * `logger` (the manager's logger, unnamed), `registry` (the Prometheus registry `/metrics`
 * serves), `client` (absent when the manager has none), `recorders` (`(component) =>
 * EventRecorder`, absent without a client), `informerMonitor` (what an informer cache reports
 * its informers to).
 */
export const DEPS = {
  logger: LOGGER_KEY,
  registry: METRICS_REGISTRY_KEY,
  client: KUBE_CLIENT_KEY,
  recorders: EVENT_RECORDERS_KEY,
  informerMonitor: INFORMER_MONITOR_KEY,
} as const;
