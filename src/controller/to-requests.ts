import { mergeMap, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { objectRequestsOf } from './event-requests.js';
import type { RequestAdd } from './event-requests.js';

/**
 * Maps each informer event to a work-queue add for the event's own object (controller-runtime's
 * `EnqueueRequestForObject`, CR-8): the new object of an update, the last known object of a
 * delete (tombstones unwrapped). Initial-list adds and resync updates get `priority: -100`
 * (`LOW_PRIORITY`, PQ-2), so fresh changes overtake the initial backlog.
 *
 * ```
 * events:  --add(ns/a, initial)--upd(ns/a)--del(tombstone ns/b)--|
 * output:  --{ns/a, prio -100}---{ns/a}-----{ns/b}---------------|
 * ```
 */
export function toRequests<T extends KubeObject>(): OperatorFunction<InformerEvent<T>, RequestAdd> {
  return mergeMap((event) => objectRequestsOf(event));
}
