import type { KubeObject } from '../api/kube-object.js';
import { IndexerConflictError, IndexNotFoundError } from '../cache/errors.js';
import type { Indexer } from '../cache/indexer.js';
import type { ObjectKey } from '../cache/keys.js';
import type { IndexFunc, Store } from '../cache/store.js';
import type { SharedInformer } from './shared-informer.js';

/**
 * A declared index of one informer, by a name the type system knows: obtained from
 * `informer.withIndex('node', fn).by('node')`, so a misspelt name is a compile error rather than
 * an `IndexNotFoundError` at run time. A handle is also a join side (`store`, `index`, `on`): joins
 * take handles and reuse the informer's own index function.
 *
 * ```ts
 * const pods = informers.pods<Pod>().withIndex('node', (p) => [p.spec?.nodeName ?? '']);
 * const byNode = pods.by('node');      // IndexHandle<Pod, 'node'>
 * byNode.list('node-a');               // the pods on node-a, from the cache
 * pods.by('nodes');                    // compile error: '"nodes"' is not assignable to '"node" | "namespace"'
 * ```
 */
export interface IndexHandle<T extends KubeObject = KubeObject, N extends string = string> {
  /** The informer whose cache this index is part of. */
  readonly informer: SharedInformer<T>;
  /** The index name (also `index`, as a join side names it). */
  readonly name: N;
  readonly index: N;
  /** The informer's cache. */
  readonly store: Store<T>;
  /** The index function: the values an object is indexed under. */
  readonly on: IndexFunc<T>;
  /** Cached objects indexed under `value`. */
  list(value: string): T[];
  /** Keys of the cached objects indexed under `value`, sorted. */
  keys(value: string): ObjectKey[];
  /** Index values that currently hold at least one object. */
  values(): string[];
}

/**
 * Declares index `name` on `indexer`: a new name is added (the cached objects are indexed at once
 * when there are any); the same name with the same function is a no-op, so independent
 * composition steps may each declare what they use; the same name with another function throws
 * `IndexerConflictError`.
 */
export function declareIndex<T extends KubeObject>(indexer: Indexer<T>, name: string, fn: IndexFunc<T>): void {
  const existing = indexer.getIndexers()[name];
  if (existing === fn) return;
  if (existing !== undefined) throw new IndexerConflictError([name], 'conflict');
  indexer.addIndexers({ [name]: fn }, { backfill: true });
}

/** The handle of index `name` of `informer` (throws `IndexNotFoundError` when it is not declared). */
export function indexHandle<T extends KubeObject, N extends string>(informer: SharedInformer<T>, name: N): IndexHandle<T, N> {
  const store = informer.store;
  const on = store.getIndexers()[name];
  if (on === undefined) throw new IndexNotFoundError(name);
  return Object.freeze({
    informer,
    name,
    index: name,
    store,
    on,
    list: (value: string) => store.byIndex(name, value),
    keys: (value: string) => store.indexKeys(name, value),
    values: () => store.indexValues(name),
  });
}
