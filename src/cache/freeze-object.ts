import { freeze } from 'immer';

/**
 * How the cache protects stored objects against mutation by handlers:
 * - `'deep'`: immer's recursive `freeze(obj, true)`; every nested field is read-only. Costs about as
 *   much as `JSON.parse` of the same object (measured 90–105 % for a 2.6 KB pod, see
 *   `bench/cache-core.ts`), far above the 25 % budget, so it is opt-in.
 * - `'shallow'` (default): the object and each of its direct children (`metadata`, `spec`,
 *   `status`, …) are frozen, so the common mistakes (`obj.metadata.labels = …`,
 *   `obj.status = …`) throw in strict mode; deeper fields are not guarded. About 1–2 % of parse.
 * - `'none'`: nothing is frozen.
 */
export type FreezeMode = 'deep' | 'shallow' | 'none';

/** Freezes `object` according to `mode` and returns it. */
export function freezeObject<T>(object: T, mode: FreezeMode): T {
  if (mode === 'none' || object === null || typeof object !== 'object') return object;
  if (mode === 'deep') return freeze(object, true);
  if (Object.isFrozen(object)) return object;
  const record = object as Record<string, unknown>;
  for (const k in record) {
    const child = record[k];
    if (child !== null && typeof child === 'object') Object.freeze(child);
  }
  return Object.freeze(object);
}
