import { type Observable, defer, from, switchMap } from 'rxjs';
import type { EventsV1Event } from '../api/builtin-types.js';
import { abortable } from '../client/abortable.js';
import { UnknownResourceError } from '../client/discovery.js';
import type { KubeClient } from '../client/kube-client.js';
import type { CoreEvent, EventPatch } from './core-event.js';
import type { EventsApi } from './events-api.js';
import { fromEventsV1, seriesPatch, toEventsV1 } from './events-v1.js';

const CORE_EVENTS = { apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true } as const;
const EVENTS_V1 = { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events', namespaced: true } as const;

/** Which Events API {@link clientEventsApi} writes. */
export type EventsApiVersion = 'events.k8s.io/v1' | 'v1';

/** Options of {@link clientEventsApi}. */
export interface ClientEventsApiOptions {
  /**
   * `'auto'` (default): events.k8s.io/v1 when the server serves it (kube-apiserver ≥ 1.19),
   * core/v1 otherwise, decided by discovery on the first write. Or one of them, fixed.
   */
  readonly api?: 'auto' | EventsApiVersion;
}

/** An {@link EventsApi} that also tells which API it writes. */
export interface ClientEventsApi extends EventsApi {
  /** The API the writes go to (discovered on first use with `'auto'`). */
  version(): Promise<EventsApiVersion>;
}

/**
 * {@link EventsApi} over the HTTP client. With events.k8s.io/v1 (the default where served): a new
 * Event is created in the v1 form (`regarding`, `note`, `eventTime`, `reportingController`,
 * `reportingInstance`, `action`), and a repeat patches its `series` (count, lastObservedTime), the
 * only field v1 Events may change. With core/v1: POST and merge-PATCH of `count`,
 * `lastTimestamp` and `message`. The recorder works on the core/v1 shape either way.
 */
export function clientEventsApi(client: KubeClient, options: ClientEventsApiOptions = {}): ClientEventsApi {
  const wanted = options.api ?? 'auto';
  let decided: Promise<EventsApiVersion> | undefined;
  const version = (): Promise<EventsApiVersion> => {
    if (wanted !== 'auto') return Promise.resolve(wanted);
    decided ??= client.resolve({ apiVersion: EVENTS_V1.apiVersion, kind: EVENTS_V1.kind }).then(
      (): EventsApiVersion => 'events.k8s.io/v1',
      (err: unknown): EventsApiVersion => {
        if (err instanceof UnknownResourceError) return 'v1';
        decided = undefined; // not an answer: ask again next time
        throw err;
      },
    );
    return decided;
  };
  const withVersion = <T>(fn: (v: EventsApiVersion) => Observable<T>): Observable<T> => defer(() => from(version())).pipe(switchMap(fn));
  return {
    version,
    create: (namespace: string, event: CoreEvent) =>
      withVersion((v) =>
        v === 'v1'
          ? abortable((signal) => client.objects<CoreEvent>(CORE_EVENTS, namespace).create(event, { signal }))
          : abortable(async (signal) => fromEventsV1(await client.objects<EventsV1Event>(EVENTS_V1, namespace).create(toEventsV1(event), { signal }))),
      ),
    patch: (namespace: string, name: string, patch: EventPatch) =>
      withVersion((v) =>
        v === 'v1'
          ? abortable((signal) => client.objects<CoreEvent>(CORE_EVENTS, namespace).patch(name, patch, 'merge', { signal }))
          : abortable(async (signal) => fromEventsV1(await client.objects<EventsV1Event>(EVENTS_V1, namespace).patch(name, seriesPatch(patch), 'merge', { signal }))),
      ),
  };
}
