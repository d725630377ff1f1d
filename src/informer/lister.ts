import type { KubeObject } from '../api/kube-object.js';
import { NAMESPACE_INDEX } from '../cache/indexer.js';
import { joinKey } from '../cache/keys.js';
import type { Store } from '../cache/store.js';
import { type LabelSelector, labelMatcher } from './label-selector.js';

/**
 * Typed read access to an informer's cache. Returned objects are the frozen cached instances; over
 * an informer's store (`lister(informer.store)`, `factory.lister(informer)`) `T` is
 * `Cached<Pod>` etc., so `get(…)?.metadata.uid` needs no `!`.
 */
export interface Lister<T extends KubeObject = KubeObject> {
  /** The object `namespace/name` (`''` or undefined namespace for cluster-scoped objects). */
  get(namespace: string | undefined, name: string): T | undefined;
  /** Objects in `namespace` (all when undefined) matching `selector` (all when undefined). */
  list(namespace?: string, selector?: LabelSelector): T[];
  /** Objects under `value` in index `indexName` (throws `IndexNotFoundError` for an unknown index). */
  byIndex(indexName: string, value: string): T[];
}

/** A {@link Lister} over a store (uses the built-in namespace index for namespaced lists). */
export function lister<T extends KubeObject>(store: Store<T>): Lister<T> {
  return {
    get: (namespace, name) => store.get(joinKey(namespace ?? '', name)),
    list: (namespace, selector) => {
      const matches = labelMatcher(selector);
      const all = namespace === undefined ? store.list() : store.byIndex(NAMESPACE_INDEX, namespace);
      return selector === undefined ? all : all.filter((o) => matches(o.metadata?.labels));
    },
    byIndex: (indexName, value) => store.byIndex(indexName, value),
  };
}
