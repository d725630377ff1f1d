import type { KubeObject } from '../api/kube-object.js';
import type { StoreChange } from './apply-deltas.js';
import type { DeletedFinalStateUnknown } from './delta.js';

/**
 * A notification for event handlers (docs/semantics.md §4.2):
 * - `add`: a new key; `isInInitialList` is true for objects of the initial list (and for the
 *   replay a late subscriber gets).
 * - `update`: the key existed; `old` is the previously cached object. `resync` is true when old
 *   and new carry the same `resourceVersion` (a resync or an unchanged relisted object, SI-6);
 *   an informer delivers those only to subscribers that asked for resyncs.
 * - `delete`: the object as last seen, or a {@link DeletedFinalStateUnknown} tombstone when the
 *   deletion was inferred by a relist.
 */
export type InformerEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'add'; readonly object: T; readonly isInInitialList: boolean }
  | { readonly type: 'update'; readonly old: T; readonly object: T; readonly resync: boolean }
  | { readonly type: 'delete'; readonly object: T | DeletedFinalStateUnknown<T> };

/**
 * SI-6: an update is a resync iff both objects have `metadata` and equal `resourceVersion`
 * (two objects both lacking a resourceVersion count as equal, as in client-go).
 */
export function isResyncUpdate(old: KubeObject, object: KubeObject): boolean {
  const a = old.metadata;
  const b = object.metadata;
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return false;
  return a.resourceVersion === b.resourceVersion;
}

/**
 * Maps an applied delta to its notification (SI-5): `Deleted` → `delete`; any other type →
 * `update` if the key was cached before, else `add`.
 */
export function toInformerEvent<T extends KubeObject>(change: StoreChange<T>): InformerEvent<T> {
  const { delta, old } = change;
  if (delta.type === 'Deleted') return { type: 'delete', object: delta.object };
  const object = delta.object as T;
  if (old === undefined) return { type: 'add', object, isInInitialList: change.isInInitialList };
  return { type: 'update', old, object, resync: isResyncUpdate(old, object) };
}
