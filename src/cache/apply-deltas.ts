import type { KubeObject } from '../api/kube-object.js';
import { type Delta, DeletedFinalStateUnknown, type PoppedDeltas } from './delta.js';
import { CacheError, InvalidInputError, KeyError } from './errors.js';
import type { Indexer } from './indexer.js';
import type { ObjectKey } from './keys.js';
import type { Store } from './store.js';

/**
 * One delta after it was applied to the cache: the delta, the object the cache held under its
 * key before (`undefined` if none), and the cache (already updated).
 */
export interface StoreChange<T extends KubeObject = KubeObject> {
  readonly key: ObjectKey;
  readonly delta: Delta<T>;
  readonly old: T | undefined;
  readonly store: Store<T>;
  readonly isInInitialList: boolean;
}

/**
 * Applies a popped `Deltas` to `indexer`, oldest first (docs/semantics.md SI-5): `Sync`, `Replaced`,
 * `Added`, `Updated` upsert; `Deleted` deletes (a tombstone deletes its key; absent → no-op).
 * Returns one {@link StoreChange} per applied delta. `onChange`, if given, is called with each
 * change right after its write and before the next delta is applied (what `indexStore` emits).
 *
 * Bad input never throws: a write that fails (key or index function error) is reported to
 * `onError` and the remaining deltas of this batch are skipped (SI-5: a store error aborts the
 * batch); an unknown delta type, or a tombstone in a non-`Deleted` delta, is reported and skipped.
 */
export function applyDeltas<T extends KubeObject>(
  indexer: Indexer<T>,
  popped: PoppedDeltas<T>,
  onError: (error: CacheError) => void = defaultOnError,
  onChange?: (change: StoreChange<T>) => void,
): StoreChange<T>[] {
  const out: StoreChange<T>[] = [];
  const deltas = popped.deltas;
  for (let i = 0; i < deltas.length; i++) {
    const delta = deltas[i] as Delta<T>;
    const object = delta.object;
    let old: T | undefined;
    let key: ObjectKey;
    try {
      switch (delta.type) {
        case 'Sync':
        case 'Replaced':
        case 'Added':
        case 'Updated':
          if (object instanceof DeletedFinalStateUnknown) {
            onError(new InvalidInputError(delta, `a tombstone cannot be stored (delta type ${delta.type})`));
            continue;
          }
          key = indexer.keyOf(object);
          old = indexer.upsertByKey(key, object);
          break;
        case 'Deleted':
          key = indexer.keyOf(object);
          old = indexer.deleteByKey(key);
          break;
        default:
          onError(new InvalidInputError(delta, `unknown delta type ${JSON.stringify((delta as { type: unknown }).type)}`));
          continue;
      }
    } catch (err) {
      onError(err instanceof CacheError ? err : new KeyError(object, err));
      break;
    }
    const change: StoreChange<T> = { key, delta, old, store: indexer, isInInitialList: popped.isInInitialList };
    out.push(change);
    onChange?.(change);
  }
  return out;
}

const defaultOnError = (error: CacheError): void => console.warn(`rxkube indexStore: ${error.message}`);
