import { map, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { StoreChange } from './apply-deltas.js';
import { type InformerEvent, toInformerEvent } from './informer-event.js';

/**
 * Turns applied deltas into handler notifications (docs/semantics.md SI-5, SI-6): `Deleted` → `delete`
 * (object or tombstone); otherwise `add` (with `isInInitialList`) when the key was not cached
 * before, `update` (`old`, `object`, `resync` = same resourceVersion) when it was.
 *
 * ```
 * changes: --c(Added, old ∅)--c(Sync, old rv1 → rv1)--c(Updated, rv1 → rv2)--c(Deleted)--|
 * output:  --add--------------update(resync: true)----update(resync: false)--delete------|
 * ```
 */
export function handlerEvents<T extends KubeObject>(): OperatorFunction<StoreChange<T>, InformerEvent<T>> {
  return map((change: StoreChange<T>) => toInformerEvent(change));
}
