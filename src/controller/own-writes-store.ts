import type { KubeObject } from '../api/kube-object.js';
import { metaNamespaceKey, type ObjectKey } from '../cache/keys.js';
import type { Indexers, Store } from '../cache/store.js';
import type { OwnWrite } from './own-writes.js';

/** What {@link ownWritesStore} asks of the controller's read-your-writes state. */
export interface PendingWrites {
  /** Whether any write of the store's type may be pending (false: read the cache as is). */
  active(): boolean;
  /** The controller's write of `key` that this store does not show yet, if any. */
  pending(key: ObjectKey): OwnWrite | undefined;
}

/**
 * A read view of `cache` that never returns an object older than the controller's own write of it:
 * an object the cache holds at an older version than the controller wrote is returned as the
 * server answered the write, and one the controller deleted is left out. It does not add objects
 * the cache does not hold yet (a create shows once the cache has it: a cache may be filtered and
 * never hold it). Index lookups use the cache's index, so an object whose write changed its index
 * values is found under the old ones until the cache catches up.
 */
export function ownWritesStore<T extends KubeObject>(cache: Store<T>, writes: PendingWrites): Store<T> {
  /** The object to return for a cached one: the controller's newer write, or nothing when it deleted it. */
  const view = (object: T, key: ObjectKey = metaNamespaceKey(object)): T | undefined => {
    const write = writes.pending(key);
    if (write === undefined) return object;
    const uid = object.metadata?.uid;
    if (write.uid !== undefined && uid !== undefined && write.uid !== uid) return object;
    return write.deleted ? undefined : ((write.object as T | undefined) ?? object);
  };
  const views = (objects: T[]): T[] => {
    if (!writes.active()) return objects;
    const out: T[] = [];
    for (const o of objects) {
      const v = view(o);
      if (v !== undefined) out.push(v);
    }
    return out;
  };
  const present = (keys: ObjectKey[]): ObjectKey[] => (writes.active() ? keys.filter((k) => get(k) !== undefined) : keys);
  const get = (key: ObjectKey): T | undefined => {
    const object = cache.get(key);
    return object === undefined || !writes.active() ? object : view(object, key);
  };
  return {
    get size(): number {
      return writes.active() ? present(cache.listKeys()).length : cache.size;
    },
    get,
    has: (key) => get(key) !== undefined,
    list: () => views(cache.list()),
    listKeys: () => present(cache.listKeys()),
    byIndex: (name, value) => views(cache.byIndex(name, value)),
    indexKeys: (name, value) => present(cache.indexKeys(name, value)),
    index: (name, object) => views(cache.index(name, object)),
    indexValues: (name) => cache.indexValues(name),
    getIndexers: (): Indexers<T> => cache.getIndexers(),
  };
}
