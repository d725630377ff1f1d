import type { KubeObject } from '../api/kube-object.js';
import { IndexerConflictError, IndexNotFoundError } from '../cache/errors.js';
import type { Indexer } from '../cache/indexer.js';
import type { IndexFunc } from '../cache/store.js';
import type { IndexHandle, SharedInformer } from './shared-informer-interface.js';

export type { IndexHandle } from './shared-informer-interface.js';

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
