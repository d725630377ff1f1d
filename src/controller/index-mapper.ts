import type { KubeObject } from '../api/kube-object.js';
import type { Store } from '../cache/store.js';
import type { RequestMapper } from './event-requests.js';

/**
 * A `watches` mapping that joins through an index (the controller-side form of the `join`
 * operator): an object of the watched type maps to the keys of every object of `store` indexed
 * under `on(object)` — e.g. a Node to the pods scheduled on it, an owner to its owned objects.
 *
 * ```ts
 * // reconcile pods when their node changes
 * watches: [{ source: informerSource(nodes), map: indexMapper(pods.store, 'node', (n) => [n.metadata?.name ?? '']) }]
 * ```
 * @throws IndexNotFoundError (when mapping) if `store` has no index `index`.
 */
export function indexMapper<T extends KubeObject, U extends KubeObject>(
  store: Store<T>,
  index: string,
  on: (object: U) => readonly string[],
): RequestMapper<U> {
  return (object) => {
    const keys = new Set<string>();
    for (const v of on(object)) for (const k of store.indexKeys(index, v)) keys.add(k);
    return [...keys];
  };
}
