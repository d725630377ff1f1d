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
  return new OwnWritesStore(cache, writes);
}

/** {@link ownWritesStore}: a class, so that a reconcile's stores cost one allocation each. */
class OwnWritesStore<T extends KubeObject> implements Store<T> {
  constructor(
    private readonly cache: Store<T>,
    private readonly writes: PendingWrites,
  ) {}

  get size(): number {
    return this.writes.active() ? this.present(this.cache.listKeys()).length : this.cache.size;
  }

  get(key: ObjectKey): T | undefined {
    const object = this.cache.get(key);
    return object === undefined || !this.writes.active() ? object : this.view(object, key);
  }

  has(key: ObjectKey): boolean {
    return this.get(key) !== undefined;
  }

  list(): T[] {
    return this.views(this.cache.list());
  }

  listKeys(): ObjectKey[] {
    return this.present(this.cache.listKeys());
  }

  byIndex(name: string, value: string): T[] {
    return this.views(this.cache.byIndex(name, value));
  }

  indexKeys(name: string, value: string): ObjectKey[] {
    return this.present(this.cache.indexKeys(name, value));
  }

  index(name: string, object: T): T[] {
    return this.views(this.cache.index(name, object));
  }

  indexValues(name: string): string[] {
    return this.cache.indexValues(name);
  }

  getIndexers(): Indexers<T> {
    return this.cache.getIndexers();
  }

  /** The object to return for a cached one: the controller's newer write of it, or nothing when it deleted it. */
  private view(object: T, key: ObjectKey = metaNamespaceKey(object)): T | undefined {
    const write = this.writes.pending(key);
    if (write === undefined) return object;
    const uid = object.metadata?.uid;
    if (write.uid !== undefined && uid !== undefined && write.uid !== uid) return object;
    return write.deleted ? undefined : ((write.object as T | undefined) ?? object);
  }

  private views(objects: T[]): T[] {
    if (!this.writes.active()) return objects;
    const out: T[] = [];
    for (const o of objects) {
      const v = this.view(o);
      if (v !== undefined) out.push(v);
    }
    return out;
  }

  private present(keys: ObjectKey[]): ObjectKey[] {
    return this.writes.active() ? keys.filter((k) => this.get(k) !== undefined) : keys;
  }
}
