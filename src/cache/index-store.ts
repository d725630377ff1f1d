import { Observable, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { applyDeltas, type StoreChange } from './apply-deltas.js';
import type { PoppedDeltas } from './delta.js';
import type { CacheError } from './errors.js';
import type { Indexer } from './indexer.js';

/** Options of {@link indexStore}. */
export interface IndexStoreOptions {
  /** Receives rejected deltas (key or index errors, unknown delta types); default `console.warn`. */
  readonly onError?: (error: CacheError) => void;
}

/**
 * Applies each popped `Deltas` to `indexer` (docs/semantics.md SI-5) and emits one {@link StoreChange}
 * `{ key, delta, old, store, isInInitialList }` per delta, synchronously, right after that delta's
 * write and before the next one, so a subscriber reading `store` sees exactly the deltas so far. `Sync`/`Replaced`/`Added`/`Updated`
 * upsert, `Deleted` removes (tombstones by their key). A failing write is reported to `onError`
 * and skips the rest of that batch; the stream and the cache stay intact.
 *
 * ```
 * popped:  --P(a:[Added a1, Updated a2])----P(b:[Deleted b])--|
 * output:  --(c1 c2)-------------------------c3---------------|
 *          c1 = {Added a1, old: undefined}, c2 = {Updated a2, old: a1}, c3 = {Deleted b, old: b0}
 * ```
 */
export function indexStore<T extends KubeObject>(
  indexer: Indexer<T>,
  options: IndexStoreOptions = {},
): OperatorFunction<PoppedDeltas<T>, StoreChange<T>> {
  return (source) =>
    new Observable<StoreChange<T>>((subscriber) =>
      source.subscribe({
        next: (popped) => {
          applyDeltas(indexer, popped, options.onError, (change) => subscriber.next(change));
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}
