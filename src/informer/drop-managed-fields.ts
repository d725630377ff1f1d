import type { KubeObject } from '../api/kube-object.js';

/**
 * The informer's default transform: the object without `metadata.managedFields` (often half of
 * an object's size and rarely needed by controllers). Returns the same object when it has none;
 * never mutates its input.
 */
export function dropManagedFields<T extends KubeObject>(object: T): T {
  const meta = object.metadata as (Record<string, unknown> & { managedFields?: unknown }) | undefined;
  if (meta === undefined || meta === null || typeof meta !== 'object' || !('managedFields' in meta)) return object;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...object, metadata: rest };
}
