import { mergeMap, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { filterTransition } from '../informer/filter-transitions.js';
import { and, type EventPredicate } from '../informer/predicates.js';
import type { WorkQueueAdd } from '../workqueue/request.js';
import { ControllerBuildError } from './controller-errors.js';
import type { ControllerSource } from './controller-source.js';
import {
  mappedRequestsOf,
  objectRequestsOf,
  ownerRequestsOf,
  type RequestMapper,
} from './event-requests.js';
import { isSource, type ResolvedSources } from './resolve-sources.js';

/** A source of a controller and how its events become work-queue adds. */
export interface Binding {
  readonly source: ControllerSource;
  readonly toRequests: OperatorFunction<InformerEvent, WorkQueueAdd>;
}

/** Reports an event dropped because its filter, a predicate or its mapping threw. */
export type EventErrorReporter = (error: unknown, event: InformerEvent) => void;

/**
 * One binding per source, `for` first, then `owns`, then `watches`: `for` events enqueue the
 * object (CR-8), `owns` events its owner of the `for` type (CR-9), `watches` events what `map`
 * returns. `common` predicates apply to every source, before the entry's own.
 * @throws ControllerBuildError for a `watches` entry without a source or a map function.
 */
export function bindSources<T extends KubeObject>(
  sources: ResolvedSources<T>,
  common: readonly EventPredicate[],
  onError: EventErrorReporter,
): Binding[] {
  const bindings: Binding[] = [];
  const forSpec = sources.for;
  if (forSpec !== undefined) {
    bindings.push({
      source: forSpec.source as unknown as ControllerSource,
      toRequests: eventRequests(
        forSpec.filter as ((o: KubeObject) => boolean) | undefined,
        [...common, ...((forSpec.predicates ?? []) as readonly EventPredicate[])],
        objectRequestsOf,
        onError,
      ),
    });
  }
  for (const o of sources.owns) {
    const owner = forSpec?.source.resource as ResourceType & { readonly namespaced: boolean };
    bindings.push({
      source: o.source,
      toRequests: eventRequests(
        o.filter as ((o: KubeObject) => boolean) | undefined,
        [...common, ...(o.predicates ?? [])],
        (e) => ownerRequestsOf(e, owner, { matchEveryOwner: o.matchEveryOwner === true }),
        onError,
      ),
    });
  }
  for (const w of sources.watches) {
    if (w === null || typeof w !== 'object' || typeof w.map !== 'function' || !isSource(w.source)) {
      throw new ControllerBuildError('each watches entry needs a source and a map function');
    }
    // Objects from the cache: `map` and `filter` may take them as `Cached` (metadata present).
    const map: RequestMapper = (o) => (w.map as RequestMapper)(o);
    bindings.push({
      source: w.source,
      toRequests: eventRequests(
        w.filter === undefined ? undefined : (o) => (w.filter as (o: KubeObject) => boolean)(o),
        [...common, ...(w.predicates ?? [])],
        w.priority === undefined ? (e) => mappedRequestsOf(e, map) : (e) => mappedRequestsOf(e, map).map((add) => ({ ...add, priority: w.priority })),
        onError,
      ),
    });
  }
  return bindings;
}

/**
 * The requests of each event: the filter's transitions (CT-3), then the predicates, then the
 * mapping. A throwing filter, predicate or mapping drops that one event (reported), not the
 * controller.
 */
function eventRequests(
  filter: ((object: KubeObject) => boolean) | undefined,
  predicates: readonly EventPredicate[],
  toAdds: (event: InformerEvent) => WorkQueueAdd[],
  onError: EventErrorReporter,
): OperatorFunction<InformerEvent, WorkQueueAdd> {
  const passes = predicates.length === 0 ? undefined : and(...predicates);
  return mergeMap((event: InformerEvent): WorkQueueAdd[] => {
    try {
      const kept = filter === undefined ? event : filterTransition(event, filter);
      if (kept === undefined || (passes !== undefined && !passes(kept))) return [];
      return toAdds(kept);
    } catch (error) {
      onError(error, event);
      return [];
    }
  });
}
