/**
 * Equality of JSON data. `sameJson`: whether two values serialize to the same JSON text, without
 * serializing them (key order counts). `sameJsonIgnoringKeyOrder`: deep equality as Go's semantic
 * equality, where key order does not matter.
 *
 * `sameJson` in detail: the write path
 * asks this of whole objects (is an update a no-op? did the spec change?) and most answers come
 * from the first differing field. Exactly `JSON.stringify(a) === JSON.stringify(b)` for plain JSON
 * data (key order counts, keys whose value is undefined are left out, `-0` is `0`); anything else
 * (class instances, functions, `toJSON`, non-finite numbers, bigints) is handed to `JSON.stringify`.
 */

type Obj = Record<string, unknown>;

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether `JSON.stringify` leaves a property with this value out of an object. */
function leftOut(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** Keys `JSON.stringify` writes for a plain object: its own enumerable string keys, without left-out values. */
function writtenKeys(o: Obj): string[] {
  const keys = Object.keys(o);
  for (const k of keys) if (leftOut(o[k])) return keys.filter((x) => !leftOut(o[x]));
  return keys;
}

/** Whether `v` (a plain object or array member) needs `JSON.stringify`'s own rules. */
function special(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return false;
    case 'number':
      return !Number.isFinite(v);
    case 'object':
      return v !== null && !Array.isArray(v) && (!isPlain(v) || typeof (v as Obj)['toJSON'] === 'function');
    default:
      return true; // undefined (inside arrays), function, symbol, bigint
  }
}

function slow(a: unknown, b: unknown): boolean {
  return (JSON.stringify(a) ?? 'null') === (JSON.stringify(b) ?? 'null');
}

/** `JSON.stringify(a) === JSON.stringify(b)`, for values inside objects or arrays. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (special(a) || special(b)) return slow(a, b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const ka = writtenKeys(a as Obj);
  const kb = writtenKeys(b as Obj);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i]) return false;
    if (!sameJson((a as Obj)[k], (b as Obj)[k])) return false;
  }
  return true;
}

/**
 * Deep equality of JSON data, as Go's semantic equality (`equality.Semantic.DeepEqual` of decoded
 * JSON): key order does not matter, a key whose value is undefined counts as absent. Admission
 * rules ask it (is an immutable field unchanged?), and so does CRD validation ratcheting (is this
 * value unchanged by the update?).
 */
export function sameJsonIgnoringKeyOrder(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJsonIgnoringKeyOrder(a[i], b[i])) return false;
    return true;
  }
  const x = a as Obj;
  const y = b as Obj;
  let n = 0;
  for (const k of Object.keys(x)) {
    if (x[k] === undefined) continue;
    n++;
    if (!Object.hasOwn(y, k) || !sameJsonIgnoringKeyOrder(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) n--;
  return n === 0;
}

/**
 * `next` with each top-level field (and each field of `metadata`) that has the same JSON as in
 * `old` replaced by `old`'s: a stored version keeps only what changed as new objects, the rest is
 * shared with the version before (stored objects are never changed in place), so an update that
 * changes a label does not keep a second copy of the spec alive in the history.
 */
export function shareUnchanged(next: Obj, old: Obj): Obj {
  for (const k of Object.keys(next)) {
    const v = next[k];
    if (v === null || typeof v !== 'object' || v === old[k] || !Object.hasOwn(old, k)) continue;
    if (k === 'metadata') {
      const meta = v as Obj;
      const oldMeta = old[k];
      if (oldMeta === null || typeof oldMeta !== 'object' || Array.isArray(meta)) continue;
      for (const m of Object.keys(meta)) {
        const x = meta[m];
        if (x !== null && typeof x === 'object' && Object.hasOwn(oldMeta, m) && sameJson(x, (oldMeta as Obj)[m])) meta[m] = (oldMeta as Obj)[m];
      }
    } else if (sameJson(v, old[k])) {
      next[k] = old[k];
    }
  }
  return next;
}
