import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { deletionHandlingKey, type ObjectKey } from '../cache/keys.js';

/**
 * The object of an informer event, with a relist's tombstone unwrapped: for `add` and `update`
 * the (new) object; for `delete` the deleted object, or for a {@link DeletedFinalStateUnknown} the
 * last state known before the deletion was inferred, or `undefined` when none was known.
 * Also takes the `T | DeletedFinalStateUnknown<T>` of a delete directly.
 *
 * ```ts
 * pods.events$.pipe(filter((e) => e.type === 'delete'), map(objectOf))   // Pod | undefined
 * ```
 */
export function objectOf<T extends KubeObject>(event: Extract<InformerEvent<T>, { type: 'add' | 'update' }>): T;
export function objectOf<T extends KubeObject>(event: InformerEvent<T> | T | DeletedFinalStateUnknown<T>): T | undefined;
export function objectOf<T extends KubeObject>(event: InformerEvent<T> | T | DeletedFinalStateUnknown<T>): T | undefined {
  const object = isInformerEvent(event) ? event.object : event;
  if (object instanceof DeletedFinalStateUnknown) return object.object ?? undefined;
  return object;
}

/** The cache key (`namespace/name`) of an informer event's object; a tombstone's own key for a relist's delete. */
export function eventKey<T extends KubeObject>(event: InformerEvent<T>): ObjectKey {
  return deletionHandlingKey(event.object);
}

function isInformerEvent<T extends KubeObject>(value: InformerEvent<T> | T | DeletedFinalStateUnknown<T>): value is InformerEvent<T> {
  if (value instanceof DeletedFinalStateUnknown) return false;
  const v = value as { type?: unknown; object?: unknown };
  return (v.type === 'add' || v.type === 'update' || v.type === 'delete') && typeof v.object === 'object' && v.object !== null && !('metadata' in value);
}
