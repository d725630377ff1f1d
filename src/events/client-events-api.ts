import { abortable } from '../client/abortable.js';
import type { KubeClient } from '../client/kube-client.js';
import type { CoreEvent, EventPatch } from './core-event.js';
import type { EventsApi } from './events-api.js';

const EVENT_RESOURCE = { apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true } as const;

/** {@link EventsApi} over the HTTP client: POST and merge-PATCH of core/v1 Events. */
export function clientEventsApi(client: KubeClient): EventsApi {
  return {
    create: (namespace: string, event: CoreEvent) =>
      abortable((signal) => client.objects<CoreEvent>(EVENT_RESOURCE, namespace).create(event, { signal })),
    patch: (namespace: string, name: string, patch: EventPatch) =>
      abortable((signal) => client.objects<CoreEvent>(EVENT_RESOURCE, namespace).patch(name, patch, 'merge', { signal })),
  };
}
