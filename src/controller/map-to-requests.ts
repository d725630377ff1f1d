import { mergeMap, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { mappedRequestsOf, type RequestMapper } from './event-requests.js';
import type { RequestAdd } from './event-requests.js';

/**
 * Maps events to work-queue adds through a user function from object to requests
 * (controller-runtime's `EnqueueRequestsFromMapFunc`): for updates both the old and the new
 * object are mapped; each event's requests are deduplicated. Initial-list adds and resyncs get
 * `priority: -100` (PQ-2).
 *
 * ```
 * map:     secret → the configmaps named in its 'used-by' label
 * events:  --add(s: used-by=a)--upd(s: a → b)--|
 * output:  --{a}----------------(ab)-----------|
 * ```
 */
export function mapToRequests<T extends KubeObject>(map: RequestMapper<T>): OperatorFunction<InformerEvent<T>, RequestAdd> {
  if (typeof map !== 'function') throw new TypeError('mapToRequests needs a mapping function');
  return mergeMap((event) => mappedRequestsOf(event, map));
}
