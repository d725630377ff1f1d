import type { RunnableDeps } from '../api/runnable.js';
import { KUBE_CLIENT_KEY } from '../client/client-key.js';
import { EVENT_RECORDERS_KEY } from '../events/recorder-key.js';
import { LOGGER_KEY } from '../logging/logger-key.js';
import { METRICS_REGISTRY_KEY } from '../metrics/registry-key.js';
import type { InjectedParts } from './controller-definition.js';

/** What a manager's deps offer a controller named `name`; the recorder is made only if it is used. */
export function injectedParts(deps: RunnableDeps, name: string): InjectedParts {
  const recorders = deps.get(EVENT_RECORDERS_KEY);
  return {
    logger: deps.get(LOGGER_KEY),
    registry: deps.get(METRICS_REGISTRY_KEY),
    client: deps.get(KUBE_CLIENT_KEY),
    recorder: recorders === undefined ? undefined : () => recorders(name),
  };
}
