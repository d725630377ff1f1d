import type { KubeObject } from '../api/kube-object.js';
import type { ObjectKey } from './keys.js';

/**
 * Computes the values under which an object is indexed (may be several, or none). Declared as a
 * method so that a `Store<K8s.Pod>` is usable where a `Store<KubeObject>` is asked for (its
 * indexers take only the store's own objects).
 */
export type IndexFunc<T extends KubeObject = KubeObject> = { index(object: T): readonly string[] }['index'];

/** Index functions by index name. */
export type Indexers<T extends KubeObject = KubeObject> = Readonly<Record<string, IndexFunc<T>>>;

/**
 * The read side of the cache (docs/semantics.md §2.2, §2.3). Every call reflects all writes applied so
 * far and none half-applied: writes are synchronous, so a reader never observes an object without
 * its index entries or the reverse. Returned objects are the cached (frozen) instances; returned
 * arrays are fresh copies the caller may keep. Listing order is unspecified.
 */
export interface Store<T extends KubeObject = KubeObject> {
  /** Number of cached objects. */
  readonly size: number;
  /** The object stored under `key`, or `undefined`. Never throws. */
  get(key: ObjectKey): T | undefined;
  /** Whether `key` is cached. */
  has(key: ObjectKey): boolean;
  /** All cached objects. */
  list(): T[];
  /** All cached keys. */
  listKeys(): ObjectKey[];
  /** Objects whose `name` index values include `value`; throws `IndexNotFoundError` for an unknown index. */
  byIndex(name: string, value: string): T[];
  /** Keys whose `name` index values include `value`, sorted; throws `IndexNotFoundError` for an unknown index. */
  indexKeys(name: string, value: string): ObjectKey[];
  /** Objects sharing at least one `name` index value with `object` (deduplicated). */
  index(name: string, object: T): T[];
  /** Values of index `name` that currently hold at least one key; `[]` for an unknown index. */
  indexValues(name: string): string[];
  /** The registered index functions. */
  getIndexers(): Indexers<T>;
}

/**
 * What `deltaFifo` needs to know about the cache (`knownObjects`, §1.1): its keys and a lookup.
 * An {@link Indexer} satisfies it.
 */
export interface KnownObjects<T extends KubeObject = KubeObject> {
  listKeys(): Iterable<ObjectKey>;
  get(key: ObjectKey): T | undefined;
}
