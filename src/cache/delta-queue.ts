import type { KubeObject } from '../api/kube-object.js';
import { type Delta, type DeltaType, DeletedFinalStateUnknown, type PoppedDeltas } from './delta.js';
import { CacheError, InvalidInputError, KeyError, TransformError } from './errors.js';
import type { FifoInput } from './fifo-op.js';
import { deletionHandlingKey, type KeyFunction, type ObjectKey } from './keys.js';
import type { KnownObjects } from './store.js';

/** Options of {@link DeltaQueue} (and of the `deltaFifo` operator). */
export interface DeltaQueueOptions<T extends KubeObject> {
  /** The cache the FIFO feeds (an `Indexer`); enables relist deletions and resync (DF-5, DF-8, DF-9). */
  readonly knownObjects?: KnownObjects<T>;
  /** Relisted objects become `Replaced` instead of `Sync` deltas (DF-8); the informer sets it. Default false. */
  readonly emitDeltaTypeReplaced?: boolean;
  /** Runs once per queued object, before it is stored (DF-7); e.g. drop `managedFields`. */
  readonly transform?: (object: T) => T;
  /** Key of an object; default `deletionHandlingKey`. Must throw `KeyError` (or anything) when it cannot. */
  readonly keyFunction?: KeyFunction<T>;
  /** Receives bad input (typed {@link CacheError}); the queue keeps its state. Default: `console.warn`. */
  readonly onError?: (error: CacheError) => void;
}

const defaultOnError = (error: CacheError): void => console.warn(`rxkube deltaFifo: ${error.message}`);

/**
 * The synchronous state machine behind `deltaFifo` (client-go's DeltaFIFO, docs/semantics.md §1): per-key
 * `Deltas`, a FIFO of keys, the initial-population counter. It knows nothing about time or
 * consumers; the operator decides when to {@link pop}. Bad input goes to `onError` and changes
 * nothing.
 */
export class DeltaQueue<T extends KubeObject = KubeObject> {
  private readonly items = new Map<ObjectKey, Delta<T>[]>();
  private order: ObjectKey[] = [];
  private head = 0;
  private populated = false;
  private initialPopulationCount = 0;
  private synced = false;
  private readonly keyFunction: KeyFunction<T>;
  private readonly onError: (error: CacheError) => void;
  private readonly replacedType: DeltaType;

  constructor(private readonly options: DeltaQueueOptions<T> = {}) {
    this.keyFunction = options.keyFunction ?? deletionHandlingKey;
    this.onError = options.onError ?? defaultOnError;
    this.replacedType = options.emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
  }

  /** Number of keys waiting. */
  get length(): number {
    return this.order.length - this.head;
  }

  /** DF-12: true once the initial population has been processed (see {@link processed}); stays true. */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Applies one operation; returns true if this made the queue synced (DF-12). */
  apply(input: FifoInput<T>): boolean {
    switch (input?.type) {
      case 'add':
      case 'added':
        this.add('Added', input.object);
        break;
      case 'update':
      case 'modified':
        this.add('Updated', input.object);
        break;
      case 'delete':
      case 'deleted':
        this.delete(input.object);
        break;
      case 'replace':
        this.replace(input.items, input.namespace);
        break;
      case 'resync':
        this.resync();
        break;
      case 'bookmark':
        break;
      default:
        this.onError(new InvalidInputError(input, 'unknown deltaFifo operation'));
    }
    return this.checkSynced();
  }

  /** DF-10: removes and returns the head key's Deltas (oldest first), or `undefined` when empty. */
  pop(): PoppedDeltas<T> | undefined {
    if (this.head >= this.order.length) return undefined;
    const key = this.order[this.head] as ObjectKey;
    this.head++;
    if (this.head >= 1024 && this.head * 2 >= this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    } else if (this.head === this.order.length) {
      this.order = [];
      this.head = 0;
    }
    const deltas = this.items.get(key) as Delta<T>[];
    this.items.delete(key);
    return { key, deltas, isInInitialList: !this.synced };
  }

  /**
   * Tells the queue that the consumer finished with a popped item; counts down the initial
   * population. Returns true if this made the queue synced (DF-12: after, not before, the last
   * initial item was processed).
   */
  processed(popped: PoppedDeltas<T>): boolean {
    if (popped.isInInitialList && this.initialPopulationCount > 0) this.initialPopulationCount--;
    return this.checkSynced();
  }

  /** DF-14 debug accessor: keys in queue order. */
  listKeys(): ObjectKey[] {
    return this.order.slice(this.head);
  }

  /** DF-14 debug accessor: a copy of the Deltas queued for `key`. */
  getDeltas(key: ObjectKey): Delta<T>[] | undefined {
    const deltas = this.items.get(key);
    return deltas && [...deltas];
  }

  private checkSynced(): boolean {
    if (this.synced || !this.populated || this.initialPopulationCount > 0) return false;
    this.synced = true;
    return true;
  }

  private keyOf(object: T | DeletedFinalStateUnknown<T>): ObjectKey | undefined {
    if (object instanceof DeletedFinalStateUnknown) return object.key;
    try {
      return this.keyFunction(object);
    } catch (err) {
      this.onError(err instanceof KeyError ? err : new KeyError(object, err));
      return undefined;
    }
  }

  /** DF-2 */
  private add(type: 'Added' | 'Updated', object: T): void {
    this.populated = true;
    const key = this.keyOf(object);
    if (key !== undefined) this.queue(key, type, object, true);
  }

  /** DF-4, DF-5 */
  private delete(object: T | DeletedFinalStateUnknown<T>): void {
    this.populated = true;
    const key = this.keyOf(object);
    if (key === undefined) return;
    if (!this.items.has(key)) {
      const known = this.options.knownObjects;
      if (known === undefined || known.get(key) === undefined) return;
    }
    this.queue(key, 'Deleted', object, true);
  }

  /** DF-8; with `namespace`, only keys of that namespace are candidates for deletion (a multi-namespace informer relisting one namespace). */
  private replace(list: readonly T[], namespace?: string): void {
    if (!Array.isArray(list)) {
      this.onError(new InvalidInputError(list, 'replace needs an items array'));
      return;
    }
    const keys = new Set<ObjectKey>();
    for (const item of list) {
      const key = this.keyOf(item);
      if (key === undefined) continue;
      keys.add(key);
      this.queue(key, this.replacedType, item, true);
    }
    let queuedDeletions = 0;
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const inScope = (key: ObjectKey): boolean => prefix === undefined || key.startsWith(prefix);
    for (const [key, deltas] of this.items) {
      if (keys.has(key) || !inScope(key)) continue;
      const newest = (deltas[deltas.length - 1] as Delta<T>).object;
      const last = newest instanceof DeletedFinalStateUnknown ? newest.object : newest;
      this.queue(key, 'Deleted', new DeletedFinalStateUnknown(key, last), false);
      queuedDeletions++;
    }
    const known = this.options.knownObjects;
    if (known !== undefined) {
      for (const key of known.listKeys()) {
        if (keys.has(key) || this.items.has(key) || !inScope(key)) continue;
        this.queue(key, 'Deleted', new DeletedFinalStateUnknown(key, known.get(key) ?? null), false);
        queuedDeletions++;
      }
    }
    if (!this.populated) {
      this.populated = true;
      this.initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /** DF-9 */
  private resync(): void {
    const known = this.options.knownObjects;
    if (known === undefined) return;
    for (const knownKey of known.listKeys()) {
      const object = known.get(knownKey);
      if (object === undefined) continue;
      const key = this.keyOf(object);
      if (key === undefined || this.items.has(key)) continue;
      this.queue(key, 'Sync', object, false);
    }
  }

  /** Appends one delta (DF-2, DF-3), transforming it once (DF-7), then dedups (DF-6). */
  private queue(key: ObjectKey, type: DeltaType, object: T | DeletedFinalStateUnknown<T>, transform: boolean): void {
    let value = object;
    const fn = this.options.transform;
    if (fn !== undefined && transform && !(value instanceof DeletedFinalStateUnknown)) {
      try {
        value = fn(value);
      } catch (err) {
        this.onError(new TransformError(object, err));
        return;
      }
    }
    const delta: Delta<T> = { type, object: value };
    const deltas = this.items.get(key);
    if (deltas === undefined) {
      this.items.set(key, [delta]);
      this.order.push(key);
      return;
    }
    deltas.push(delta);
    dedupTail(deltas);
  }
}

/** DF-6: only two trailing `Deleted` deltas collapse; keep the one with more information. */
function dedupTail<T extends KubeObject>(deltas: Delta<T>[]): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 2] as Delta<T>;
  const b = deltas[n - 1] as Delta<T>;
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return;
  if (a.object instanceof DeletedFinalStateUnknown) deltas.splice(n - 2, 1);
  else deltas.pop();
}
