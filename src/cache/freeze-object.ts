import { freeze } from 'immer';

/**
 * How the cache protects stored objects against mutation by handlers:
 * - `'deep'`: every nested field is read-only. Plain objects and arrays (all that JSON holds) are
 *   frozen by a direct recursive walk, about 15–30 % of `JSON.parse` for a 3.3 KB pod (immer's
 *   `freeze(obj, true)`, used before, costs 50–100 %: `bench/cache-core.ts`); any other object inside
 *   (Map, Set, class instance) is handed to immer's `freeze(value, true)`. Objects already frozen
 *   are not walked again.
 * - `'shallow'` (default): the object and each of its direct children (`metadata`, `spec`,
 *   `status`, …) are frozen, so the common mistakes (`obj.metadata.labels = …`,
 *   `obj.status = …`) throw in strict mode; deeper fields are not guarded. About 1–2 % of parse.
 * - `'none'`: nothing is frozen.
 */
export type FreezeMode = 'deep' | 'shallow' | 'none';

/** Freezes `object` according to `mode` and returns it. */
export function freezeObject<T>(object: T, mode: FreezeMode): T {
  if (mode === 'none' || object === null || typeof object !== 'object') return object;
  if (mode === 'deep') {
    deepFreeze(object as object);
    return object;
  }
  if (Object.isFrozen(object)) return object;
  const record = object as Record<string, unknown>;
  for (const k in record) {
    const child = record[k];
    if (child !== null && typeof child === 'object') Object.freeze(child);
  }
  return Object.freeze(object);
}

/** Recursive `Object.freeze` of plain objects and arrays; other objects go to immer's freeze. */
function deepFreeze(value: object): void {
  if (Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    Object.freeze(value);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object') deepFreeze(item);
    }
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    freeze(value, true);
    return;
  }
  Object.freeze(value);
  const record = value as Record<string, unknown>;
  for (const k in record) {
    const child = record[k];
    if (child !== null && typeof child === 'object') deepFreeze(child);
  }
}
