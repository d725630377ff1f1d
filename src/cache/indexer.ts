import type { KubeObject } from '../api/kube-object.js';
import type { DeletedFinalStateUnknown } from './delta.js';
import { CacheError, IndexerConflictError, IndexFuncError, IndexNotFoundError } from './errors.js';
import { type FreezeMode, freezeObject } from './freeze-object.js';
import { deletionHandlingKey, type KeyFunction, type ObjectKey } from './keys.js';
import type { IndexFunc, Indexers, KnownObjects, Store } from './store.js';

/** Name of the built-in namespace index (ST-11). */
export const NAMESPACE_INDEX = 'namespace';

/** Indexes an object by its namespace (`""` for cluster-scoped objects); throws without metadata (ST-11). */
export function metaNamespaceIndexFunc(object: KubeObject): readonly string[] {
  const meta = object.metadata;
  if (meta === null || typeof meta !== 'object') throw new CacheError('object has no meta');
  return [meta.namespace ?? ''];
}

/** Options of {@link Indexer}. */
export interface IndexerOptions<T extends KubeObject> {
  /** Extra index functions; the `namespace` index is always present unless replaced here. */
  readonly indexers?: Indexers<T>;
  /** Key of a stored object; default {@link deletionHandlingKey} (ST-2). */
  readonly keyFunction?: KeyFunction<T>;
  /** How stored objects are frozen; default `'shallow'` (see {@link FreezeMode}). */
  readonly freeze?: FreezeMode;
}

type Index = Map<string, Set<ObjectKey>>;

/**
 * The indexed cache (client-go's ThreadSafeStore + Indexer, docs/semantics.md §2.2–2.3): objects by key,
 * plus one index per index function mapping each value to the keys that produce it.
 *
 * Writes are upserts (`add` ≡ `update`, ST-5) and keep every index exact (ST-8): a key is moved
 * between buckets when its values change and empty buckets are removed. All index values of a
 * write are computed before anything changes, so a failing key or index function throws and
 * leaves the store exactly as it was. Objects are frozen on the way in (see {@link FreezeMode}).
 */
export class Indexer<T extends KubeObject = KubeObject> implements Store<T>, KnownObjects<T> {
  private items = new Map<ObjectKey, T>();
  private indices = new Map<string, Index>();
  private indexers: Record<string, IndexFunc<T>>;
  /** `[name, fn]` pairs of `indexers`, for fast iteration on writes. */
  private entries: Array<[string, IndexFunc<T>]> = [];
  private readonly keyFunction: KeyFunction<T>;
  private readonly freezeMode: FreezeMode;

  constructor(options: IndexerOptions<T> = {}) {
    this.keyFunction = options.keyFunction ?? deletionHandlingKey;
    this.freezeMode = options.freeze ?? 'shallow';
    this.indexers = { [NAMESPACE_INDEX]: metaNamespaceIndexFunc, ...options.indexers };
    for (const name of Object.keys(this.indexers)) this.indices.set(name, new Map());
    this.entries = Object.entries(this.indexers);
  }

  get size(): number {
    return this.items.size;
  }

  /** The key this store uses for `object` (throws `KeyError`). */
  keyOf(object: T | DeletedFinalStateUnknown<T>): ObjectKey {
    return this.keyFunction(object);
  }

  /**
   * Inserts or replaces `object` under its key; returns the previous object, if any.
   * Throws `KeyError` or `IndexFuncError` without changing anything.
   */
  upsert(object: T): T | undefined {
    return this.upsertByKey(this.keyFunction(object), object);
  }

  /**
   * {@link upsert} with a key the caller already computed with {@link keyOf} (saves computing
   * it twice on the hot path). Passing any other key corrupts the cache.
   */
  upsertByKey(key: ObjectKey, object: T): T | undefined {
    const old = this.items.get(key);
    this.updateIndices(key, old, object);
    this.items.set(key, freezeObject(object, this.freezeMode));
    return old;
  }

  /** Same as {@link upsert} (ST-5: add and update are identical). */
  add(object: T): T | undefined {
    return this.upsert(object);
  }

  /** Same as {@link upsert} (ST-5). */
  update(object: T): T | undefined {
    return this.upsert(object);
  }

  /** Removes the entry of `object` (a tombstone removes its key); returns the removed object. Absent → no-op. */
  delete(object: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.deleteByKey(this.keyFunction(object));
  }

  /** Removes the entry stored under `key`; returns it, or `undefined` when absent. */
  deleteByKey(key: ObjectKey): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.updateIndices(key, old, undefined);
    this.items.delete(key);
    return old;
  }

  /**
   * Swaps the whole content for `objects` and rebuilds every index (ST-5). Keys and index values
   * are computed first; on any error nothing changes.
   */
  replace(objects: Iterable<T>): void {
    const items = new Map<ObjectKey, T>();
    for (const object of objects) items.set(this.keyFunction(object), freezeObject(object, this.freezeMode));
    const indices = new Map<string, Index>();
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index: Index = new Map();
      for (const [key, object] of items) {
        for (const value of this.values(name, fn, object)) addToBucket(index, value, key);
      }
      indices.set(name, index);
    }
    this.items = items;
    this.indices = indices;
  }

  /**
   * Registers more index functions (ST-10). A name that already exists → `IndexerConflictError`
   * (`conflict`). A store that already holds objects → `IndexerConflictError` (`not-empty`),
   * unless `backfill` is set: then the new indexes are computed over the cached objects first
   * (as client-go ≥ 1.30 does); a failing index function throws `IndexFuncError` and nothing changes.
   */
  addIndexers(indexers: Indexers<T>, options: { readonly backfill?: boolean } = {}): void {
    const names = Object.keys(indexers);
    const conflicts = names.filter((n) => n in this.indexers);
    if (conflicts.length > 0) throw new IndexerConflictError(conflicts, 'conflict');
    if (this.items.size > 0 && options.backfill !== true) throw new IndexerConflictError(names, 'not-empty');
    const built = new Map<string, Index>();
    for (const [name, fn] of Object.entries(indexers)) {
      const index: Index = new Map();
      for (const [key, object] of this.items) for (const value of this.values(name, fn, object)) addToBucket(index, value, key);
      built.set(name, index);
    }
    this.indexers = { ...this.indexers, ...indexers };
    for (const [name, index] of built) this.indices.set(name, index);
    this.entries = Object.entries(this.indexers);
  }

  get(key: ObjectKey): T | undefined {
    return this.items.get(key);
  }

  has(key: ObjectKey): boolean {
    return this.items.has(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): ObjectKey[] {
    return [...this.items.keys()];
  }

  byIndex(name: string, value: string): T[] {
    const bucket = this.indexOrThrow(name).get(value);
    if (bucket === undefined) return [];
    const out: T[] = [];
    for (const key of bucket) out.push(this.items.get(key) as T);
    return out;
  }

  indexKeys(name: string, value: string): ObjectKey[] {
    const bucket = this.indexOrThrow(name).get(value);
    return bucket === undefined ? [] : [...bucket].sort();
  }

  index(name: string, object: T): T[] {
    const index = this.indexOrThrow(name);
    const fn = this.indexers[name] as IndexFunc<T>;
    const keys = new Set<ObjectKey>();
    for (const value of this.values(name, fn, object)) {
      const bucket = index.get(value);
      if (bucket) for (const key of bucket) keys.add(key);
    }
    return [...keys].map((key) => this.items.get(key) as T);
  }

  indexValues(name: string): string[] {
    const index = this.indices.get(name);
    return index === undefined ? [] : [...index.keys()];
  }

  /** Alias of {@link indexValues} under client-go's name. */
  listIndexFuncValues(name: string): string[] {
    return this.indexValues(name);
  }

  getIndexers(): Indexers<T> {
    return { ...this.indexers };
  }

  private indexOrThrow(name: string): Index {
    const index = this.indices.get(name);
    if (index === undefined) throw new IndexNotFoundError(name);
    return index;
  }

  private values(name: string, fn: IndexFunc<T>, object: T): readonly string[] {
    try {
      return fn(object);
    } catch (err) {
      throw new IndexFuncError(name, object, err);
    }
  }

  /** ST-8. Computes every old/new value list first, then mutates, so a throwing IndexFunc changes nothing. */
  private updateIndices(key: ObjectKey, old: T | undefined, next: T | undefined): void {
    let plans: Array<[string, readonly string[], readonly string[]]> | undefined;
    for (const [name, fn] of this.entries) {
      const oldValues = old === undefined ? EMPTY : this.values(name, fn, old);
      const newValues = next === undefined ? EMPTY : this.values(name, fn, next);
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) continue;
      (plans ??= []).push([name, oldValues, newValues]);
    }
    if (plans === undefined) return;
    for (const [name, oldValues, newValues] of plans) {
      const index = this.indices.get(name) as Index;
      for (const value of oldValues) removeFromBucket(index, value, key);
      for (const value of newValues) addToBucket(index, value, key);
    }
  }
}

const EMPTY: readonly string[] = [];

function addToBucket(index: Index, value: string, key: ObjectKey): void {
  let bucket = index.get(value);
  if (bucket === undefined) {
    bucket = new Set();
    index.set(value, bucket);
  }
  bucket.add(key);
}

function removeFromBucket(index: Index, value: string, key: ObjectKey): void {
  const bucket = index.get(value);
  if (bucket === undefined) return;
  bucket.delete(key);
  if (bucket.size === 0) index.delete(value);
}
