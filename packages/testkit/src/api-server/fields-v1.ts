/**
 * FieldsV1 sets (`metadata.managedFields[].fieldsV1`) as the plain JSON objects they are stored
 * as: look-ups, copy-on-write additions and removals, and the canonical form kube-apiserver
 * writes (plain objects all the way down, keys sorted). The write path records ownership on these
 * directly, so an update that changes only fields its manager owns reuses the stored sets.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function setKey(o: Obj, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** A private deep copy of a set (anything that is not an object is the empty set, as in its canonical form). */
export function cloneFieldsV1(v: unknown): Obj {
  const out: Obj = {};
  if (isObj(v)) for (const k of Object.keys(v)) setKey(out, k, cloneFieldsV1(v[k]));
  return out;
}

/** Whether the set holds the path (each key present, every step but the last an object). */
export function hasFieldPath(set: unknown, path: readonly string[]): boolean {
  let t = set;
  for (const k of path) {
    if (!isObj(t) || !Object.hasOwn(t, k)) return false;
    t = t[k];
  }
  return true;
}

/** Adds a path to a private set (see {@link cloneFieldsV1}); whether it added anything. */
export function addFieldPath(set: Obj, path: readonly string[]): boolean {
  let t = set;
  let added = false;
  for (const k of path) {
    let c = Object.hasOwn(t, k) ? t[k] : undefined;
    if (!isObj(c)) {
      c = {};
      setKey(t, k, c);
      added = true;
    }
    t = c as Obj;
  }
  return added;
}

/**
 * Whether {@link removeFieldPath} would change the set: a key of the path is the path's last, or
 * an empty set (a field owned whole, which a deeper removal drops with it), or leads to one.
 */
export function removalChanges(set: unknown, path: readonly string[]): boolean {
  let t = set;
  for (let i = 0; i < path.length; i++) {
    const k = path[i] as string;
    if (!isObj(t) || !Object.hasOwn(t, k)) return false;
    if (i === path.length - 1) return true;
    const child = t[k];
    if (!isObj(child) || Object.keys(child).length === 0) return true;
    t = child;
  }
  return false;
}

/** Removes a path (and the sets it leaves empty, including an empty set on its way) from a private set. */
export function removeFieldPath(set: Obj, path: readonly string[], from = 0): void {
  const k = path[from];
  if (k === undefined || !Object.hasOwn(set, k)) return;
  if (from === path.length - 1) {
    delete set[k];
    return;
  }
  const child = set[k];
  if (!isObj(child)) return;
  removeFieldPath(child, path, from + 1);
  if (Object.keys(child).length === 0) delete set[k];
}

/**
 * The canonical form of a set: plain objects with sorted keys all the way down, anything else
 * the empty set. Returns `v` itself (shared, never changed) when it is canonical already; a
 * canonical part of it is shared by the result.
 */
export function canonicalFieldsV1(v: unknown): Obj {
  if (!isObj(v)) return {};
  let same = Object.getPrototypeOf(v) === Object.prototype;
  if (same && isEmpty(v)) return v; // (most sets are leaves: `{}`)
  const keys = Object.keys(v);
  const children = new Array<Obj>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const child = v[k];
    const c = canonicalFieldsV1(child);
    children[i] = c;
    if (c !== child || (i > 0 && !((keys[i - 1] as string) < k))) same = false;
  }
  if (same) return v;
  const order = keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  const out: Obj = {};
  for (const i of order) setKey(out, keys[i] as string, children[i]);
  return out;
}

function isEmpty(o: Obj): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}

/** Whether `o` is its own canonical form (see {@link canonicalFieldsV1}). */
export function isCanonicalFieldsV1(o: unknown): boolean {
  return isObj(o) && canonicalFieldsV1(o) === o;
}
