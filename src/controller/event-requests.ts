import type { KubeObject, OwnerReference } from '../api/kube-object.js';
import { splitApiVersion, type ResourceType } from '../api/resource.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import { isResyncUpdate, type InformerEvent } from '../cache/informer-event.js';
import { requestKey, type Request, type WorkQueueAdd } from '../workqueue/request.js';

/** The priority of work that is probably a no-op: initial-list adds and resyncs (PQ-2). */
export const LOW_PRIORITY = -100;

/** A work-queue add whose request is always an object (what the mapping functions produce). */
export interface RequestAdd extends WorkQueueAdd {
  readonly request: Request;
}

/** Options of owner mapping. */
export interface OwnerRequestOptions {
  /** Enqueue every matching owner, not only the controller owner (controller-runtime's `MatchEveryOwner`). */
  readonly matchEveryOwner?: boolean;
}

/** Maps an object to the requests it should cause (a `watches` mapping). */
export type RequestMapper<T extends KubeObject = KubeObject> = (object: T) => readonly (Request | string)[];

/**
 * PQ-2: {@link LOW_PRIORITY} for an add from the initial list and for an update that did not
 * change the resourceVersion (a resync); `undefined` (default priority) otherwise.
 */
export function eventPriority(event: InformerEvent): number | undefined {
  if (event.type === 'add') return event.isInInitialList ? LOW_PRIORITY : undefined;
  if (event.type === 'update') {
    if (!isObject(event.old) || !isObject(event.object)) return undefined;
    return event.resync || isResyncUpdate(event.old, event.object) ? LOW_PRIORITY : undefined;
  }
  return undefined;
}

/** The objects an event is about: the object (an update's old object too when `withOld`), tombstones unwrapped. */
function objectsOf<T extends KubeObject>(event: InformerEvent<T>, withOld: boolean): T[] {
  const out: T[] = [];
  if (event.type === 'update' && withOld && isObject(event.old)) out.push(event.old);
  let o: T | DeletedFinalStateUnknown<T> | null = event.object;
  if (o instanceof DeletedFinalStateUnknown) o = o.object;
  if (isObject(o)) out.push(o);
  else if (event.type === 'update' && !withOld && isObject(event.old)) out.push(event.old); // CR-8: new, else old
  return out;
}

function adds(requests: Iterable<Request>, priority: number | undefined): RequestAdd[] {
  const seen = new Set<string>();
  const out: RequestAdd[] = [];
  for (const request of requests) {
    const key = requestKey(request);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(priority === undefined ? { request } : { request, priority });
  }
  return out;
}

/**
 * CR-8: the request for the event's own object — the new object of an update, the last known
 * object of a delete (a tombstone's key when its object is unknown). An object without a name
 * yields nothing.
 */
export function objectRequestsOf<T extends KubeObject>(event: InformerEvent<T>): RequestAdd[] {
  const o = event.object as T | DeletedFinalStateUnknown<T> | null;
  if (o instanceof DeletedFinalStateUnknown && o.object === null) {
    const slash = o.key.indexOf('/');
    const request = slash < 0 ? { name: o.key } : { namespace: o.key.slice(0, slash), name: o.key.slice(slash + 1) };
    return adds([request], undefined);
  }
  const requests: Request[] = [];
  for (const obj of objectsOf(event, false)) {
    const r = requestOf(obj);
    if (r !== undefined) requests.push(r);
  }
  return adds(requests, eventPriority(event));
}

/**
 * CR-9: requests for the owners of the event's object(s) of type `owner` (its scope must be
 * known: cluster-scoped owners get requests without a namespace). Refs match on API group and kind (version ignored); an unparsable apiVersion stops the scan of that object; by default
 * only the first ref with `controller: true` is considered. Updates enqueue the union of the old
 * and new objects' owners. The request namespace is the object's, or none for cluster-scoped owners.
 */
export function ownerRequestsOf<T extends KubeObject>(
  event: InformerEvent<T>,
  owner: ResourceType & { readonly namespaced: boolean },
  options: OwnerRequestOptions = {},
): RequestAdd[] {
  const { group } = splitApiVersion(owner.apiVersion);
  const requests: Request[] = [];
  for (const obj of objectsOf(event, true)) {
    const refs = obj.metadata?.ownerReferences ?? [];
    const candidates: readonly OwnerReference[] = options.matchEveryOwner
      ? refs
      : refs.filter((r) => r.controller === true).slice(0, 1);
    for (const ref of candidates) {
      const gv = parseApiVersion(ref.apiVersion);
      if (gv === undefined) break;
      if (ref.kind !== owner.kind || gv.group !== group || typeof ref.name !== 'string' || ref.name === '') continue;
      const ns = obj.metadata?.namespace;
      requests.push(owner.namespaced && ns ? { namespace: ns, name: ref.name } : { name: ref.name });
    }
  }
  return adds(requests, eventPriority(event));
}

/**
 * Requests from a user mapping: `map` is applied to the object (and, for updates, to the old
 * object too); results are deduplicated.
 */
export function mappedRequestsOf<T extends KubeObject>(event: InformerEvent<T>, map: RequestMapper<T>): RequestAdd[] {
  const requests: Request[] = [];
  for (const obj of objectsOf(event, true)) {
    for (const r of map(obj)) {
      if (typeof r === 'string') {
        const slash = r.indexOf('/');
        requests.push(slash < 0 ? { name: r } : { namespace: r.slice(0, slash), name: r.slice(slash + 1) });
      } else requests.push(r);
    }
  }
  return adds(requests, eventPriority(event));
}

function requestOf(o: KubeObject): Request | undefined {
  const name = o.metadata?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const ns = o.metadata?.namespace;
  return ns ? { namespace: ns, name } : { name };
}

function parseApiVersion(apiVersion: unknown): { group: string; version: string } | undefined {
  if (typeof apiVersion !== 'string') return undefined;
  const parts = apiVersion.split('/');
  if (parts.length > 2) return undefined;
  return splitApiVersion(apiVersion);
}

function isObject<T>(x: T | null | undefined): x is T {
  return x !== null && x !== undefined && typeof x === 'object';
}
