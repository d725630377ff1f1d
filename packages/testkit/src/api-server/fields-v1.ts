/**
 * FieldsV1 sets (`metadata.managedFields[].fieldsV1`) as the plain JSON objects they are stored
 * as: exact membership (a path is a member when its node is `{}` or holds `.`), additions and
 * removals of members on private copies, and the canonical form kube-apiserver writes (plain
 * objects all the way down, keys sorted, a member with nothing below it as `{}`). The write path
 * records ownership on these directly, so an update that changes only fields its manager owns
 * reuses the stored sets.
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

/**
 * The canonical form of a set: plain objects with sorted keys all the way down, anything else
 * the empty set. Returns `v` itself (shared, never changed) when it is canonical already; a
 * canonical part of it is shared by the result.
 */
export function canonicalFieldsV1(v: unknown): Obj {
  if (!isObj(v)) return {};
  const plain = Object.getPrototypeOf(v) === Object.prototype;
  const keys = Object.keys(v);
  if (keys.length === 0) return plain ? v : {}; // (most sets are leaves: `{}`)
  // The canonical children, made only once one differs from the set's own or is out of order.
  let children: Obj[] | undefined = plain ? undefined : [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const child = v[k];
    const c = canonicalFieldsV1(child);
    if (children === undefined && (c !== child || (i > 0 && !((keys[i - 1] as string) < k)))) {
      children = [];
      for (let j = 0; j < i; j++) children.push(v[keys[j] as string] as Obj);
    }
    children?.push(c);
  }
  // A member without members below it is written `{}`, not `{".": {}}`.
  if (keys.length === 1 && keys[0] === '.') return {};
  if (children === undefined) return v;
  const order = keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  const out: Obj = {};
  for (const i of order) setKey(out, keys[i] as string, children[i]);
  return out;
}

/**
 * `set` with `paths` added as members (each path's node created or kept, and a member on the way
 * that gains members below keeping its own membership as `.`, on a {@link cloneFieldsV1} copy of
 * it), copying only the nodes on the way to them: the rest is shared with `set`, which is not
 * changed. `copied`: nodes that are private already (a copy made before), changed in place.
 */
export function withMembers(set: unknown, paths: readonly (readonly string[])[], copied: Set<Obj> = new Set()): Obj {
  const root = isObj(set) && copied.has(set) ? set : shallowCopy(set, copied);
  for (const path of paths) {
    let t = root;
    for (let i = 0; i < path.length; i++) {
      const k = path[i] as string;
      let c = Object.hasOwn(t, k) ? t[k] : undefined;
      if (!isObj(c)) {
        c = {};
        copied.add(c as Obj);
        setKey(t, k, c);
      } else {
        if (!copied.has(c)) {
          c = shallowCopy(c, copied);
          setKey(t, k, c);
        }
        if (i < path.length - 1 && isEmpty(c as Obj)) setKey(c as Obj, '.', {}); // a leaf member gaining members below
      }
      t = c as Obj;
    }
    if (!isEmpty(t) && !Object.hasOwn(t, '.')) setKey(t, '.', {});
  }
  return root;
}

/** A private copy of one node (members below shared; anything that is not an object the empty set, as a deep copy makes it). */
function shallowCopy(v: unknown, copied: Set<Obj>): Obj {
  const out: Obj = {};
  copied.add(out);
  if (isObj(v)) {
    for (const k of Object.keys(v)) {
      const c = v[k];
      setKey(out, k, isObj(c) ? c : {});
    }
  }
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

/**
 * Whether `path` is a member of the set (structured-merge-diff's exact membership): its node is
 * there and is either a leaf (`{}`) or holds `.` (a member that also has members below it). A
 * node with only deeper members (`f:data: {f:x: {}}`) is not one: `.data` is not owned there.
 */
export function isMember(set: unknown, path: readonly string[]): boolean {
  let t = set;
  for (const k of path) {
    if (!isObj(t) || !Object.hasOwn(t, k)) return false;
    t = t[k];
  }
  return isObj(t) && (isEmpty(t) || Object.hasOwn(t, '.'));
}

/**
 * Removes `path` from the members of a private set, exactly (members below it stay, as a set
 * difference in structured-merge-diff does); nodes left without members go.
 */
export function removeMember(set: Obj, path: readonly string[], from = 0): void {
  const k = path[from];
  if (k === undefined || !Object.hasOwn(set, k)) return;
  const child = set[k];
  if (!isObj(child)) return;
  if (from === path.length - 1) {
    if (isEmpty(child)) delete set[k];
    else if (Object.hasOwn(child, '.')) {
      delete child['.'];
      if (isEmpty(child)) delete set[k];
    }
    return;
  }
  if (isEmpty(child)) return; // a leaf member: nothing below it to remove
  removeMember(child, path, from + 1);
  if (isEmpty(child)) delete set[k];
}

type Trie = Map<string, Trie>;

/**
 * The canonical set of exactly `paths` as members: what {@link withMembers} of each path on an
 * empty set and then {@link canonicalFieldsV1} give, built as a trie first and written sorted once.
 */
export function setOfMembers(paths: readonly (readonly string[])[]): Obj {
  const root: Trie = new Map();
  for (const path of paths) {
    let t = root;
    for (let i = 0; i < path.length; i++) {
      const k = path[i] as string;
      let c = t.get(k);
      if (c === undefined) {
        c = new Map();
        t.set(k, c);
      } else if (i < path.length - 1 && c.size === 0) c.set('.', new Map()); // a leaf member gaining members below
      t = c;
    }
    if (t.size > 0 && !t.has('.')) t.set('.', new Map());
  }
  return trieToFieldsV1(root);
}

function trieToFieldsV1(t: Trie): Obj {
  const out: Obj = {};
  if (t.size === 0 || (t.size === 1 && t.has('.'))) return out; // (a member with nothing below: `{}`)
  const keys = [...t.keys()];
  if (keys.length > 1) keys.sort();
  for (const k of keys) setKey(out, k, trieToFieldsV1(t.get(k) as Trie));
  return out;
}
