import { mergeMap, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { ownerRequestsOf, type OwnerRequestOptions } from './event-requests.js';
import type { RequestAdd } from './event-requests.js';

/**
 * Maps events of owned objects to work-queue adds for their owners of type `owner`
 * (controller-runtime's `EnqueueRequestForOwner`, CR-9): owner references match on API group and
 * kind; only the first `controller: true` reference counts unless `matchEveryOwner`; an update
 * enqueues the union of the old and new owners, once each. Initial-list adds and resyncs get
 * `priority: -100` (PQ-2).
 *
 * ```
 * owner:   resources.replicaSets (apps/v1 ReplicaSet, namespaced)
 * events:  --add(pod p, controller rs1)--upd(p: rs1 → rs2)--add(pod q, no owner)--|
 * output:  --{ns/rs1}--------------------(rs1 rs2)--------------------------------|
 * ```
 */
export function toOwnerRequests<T extends KubeObject>(
  owner: ResourceType & { readonly namespaced: boolean },
  options: OwnerRequestOptions = {},
): OperatorFunction<InformerEvent<T>, RequestAdd> {
  if (owner === null || typeof owner !== 'object' || typeof owner.kind !== 'string' || owner.kind === '') {
    throw new TypeError('toOwnerRequests needs an owner type with apiVersion and kind');
  }
  if (typeof owner.namespaced !== 'boolean') throw new TypeError(`toOwnerRequests: owner type ${owner.kind} needs namespaced`);
  return mergeMap((event) => ownerRequestsOf(event, owner, options));
}
