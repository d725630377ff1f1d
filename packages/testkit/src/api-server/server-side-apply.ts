import { nowSeconds } from './wall-seconds.js';
import { load } from 'js-yaml';
import type { UnstructuredObject } from 'rxkube';
import { badRequest, failure, StatusError } from './status-error.js';
import { MAX_BODY_DEPTH, tooDeepAt } from './json-depth.js';
import { canonicalFieldsV1, cloneFieldsV1, isMember, removeMember, setOfMembers, withMembers } from './fields-v1.js';
import { compareForOwnership, type FieldShapes } from './ownership-compare.js';
import type { ZeroValueNode } from './zero-value-fields.js';

/**
 * Server-side apply with field ownership, as kube-apiserver's field manager does it (a subset of
 * structured-merge-diff): `metadata.managedFields` records, per manager and operation, the fields
 * it set (`FieldsV1`: `f:` fields, `k:` map-list items, `v:` set items, `.` the item itself).
 * An apply (1) conflicts (409) on fields another manager owns with a different value, unless
 * forced (then they change owner); (2) removes the fields this manager applied before and no
 * longer applies, when nobody else owns them; (3) merges the configuration in, lists by their
 * type (map lists by key, sets by value, atomic lists replaced).
 */

/** A set of fields: a tree of FieldsV1 keys. */
export type FieldTree = Map<string, FieldTree>;

/** How a list merges: by key fields (`map`), by value (`set`), or replaced whole (`atomic`). */
export type ListType = { readonly type: 'map'; readonly keys: readonly string[] } | { readonly type: 'set' } | { readonly type: 'atomic' };

/** Which list type the field at `path` (field names from the object root) has. */
export type ListTypes = (path: readonly string[]) => ListType;

const map = (...keys: string[]): ListType => ({ type: 'map', keys });
const ATOMIC: ListType = { type: 'atomic' };
const SET: ListType = { type: 'set' };

/** Strategic merge keys of the built-in types (the ones objects commonly carry). */
export function builtinListTypes(path: readonly string[]): ListType {
  const last = path[path.length - 1] ?? '';
  const parent = path[path.length - 2] ?? '';
  switch (last) {
    case 'containers': case 'initContainers': case 'ephemeralContainers': case 'volumes': case 'imagePullSecrets': case 'env':
    case 'containerStatuses': case 'initContainerStatuses':
      return map('name');
    case 'volumeMounts': return map('mountPath');
    case 'volumeDevices': return map('devicePath');
    case 'ports': return parent === 'spec' ? map('port', 'protocol') : map('containerPort', 'protocol');
    case 'conditions': return map('type');
    case 'ownerReferences': return map('uid');
    case 'finalizers': return path.length === 2 ? SET : ATOMIC;
    case 'hostAliases': return map('ip');
    case 'topologySpreadConstraints': return map('topologyKey', 'whenUnsatisfiable');
    default: return ATOMIC;
  }
}

interface Schema {
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly additionalProperties?: Schema | boolean;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

/** List types of a custom resource, from its CRD version's `openAPIV3Schema` (lists are atomic unless marked). */
export function schemaListTypes(root: unknown): ListTypes {
  return (path) => {
    if (path[0] === 'metadata') return builtinListTypes(path);
    let s = root as Schema | undefined;
    for (const seg of path) {
      if (s?.items !== undefined && s.properties === undefined) s = s.items;
      const next: Schema | undefined = s?.properties?.[seg] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
      s = next;
    }
    const t = s?.['x-kubernetes-list-type'];
    if (t === 'map') return map(...(s?.['x-kubernetes-list-map-keys'] ?? []));
    if (t === 'set') return SET;
    return ATOMIC;
  };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Key fields the server defaults before it tracks ownership: a port without `protocol` is keyed
 * as TCP, as kube-apiserver keys it (`k:{"containerPort":80,"protocol":"TCP"}`).
 */
const DEFAULTED_KEY_FIELDS: Readonly<Record<string, unknown>> = { protocol: 'TCP' };

function itemKey(item: unknown, lt: ListType): string {
  if (lt.type === 'map' && isObj(item)) {
    // JSON.stringify of the key fields as an object, written field by field.
    let k = '';
    for (const f of lt.keys) {
      const v = item[f] ?? DEFAULTED_KEY_FIELDS[f];
      if (v === undefined) continue;
      const json = JSON.stringify(v) as string | undefined;
      if (json === undefined) continue; // (a function or symbol: left out, as in an object)
      k += `${k === '' ? '' : ','}${JSON.stringify(f)}:${json}`;
    }
    return `k:{${k}}`;
  }
  return `v:${JSON.stringify(item)}`;
}

/**
 * A `metav1.LabelSelector` (`matchLabels` / `matchExpressions`): an atomic struct in Kubernetes
 * 1.20, owned and replaced whole (`f:selector: {}`). A Service's `selector`, a plain string map,
 * is not one.
 */
function isLabelSelector(v: unknown): boolean {
  if (!isObj(v)) return false;
  let any = false;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (k !== 'matchLabels' && k !== 'matchExpressions') return false;
    any = true;
  }
  return any;
}

/** The fields `obj` sets (as the applied configuration's field set); `status` included (callers pick the part a request may write). */
export function fieldsOf(obj: unknown, types: ListTypes, path: readonly string[] = []): FieldTree {
  const out: FieldTree = new Map();
  if (!isObj(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || (path.length === 0 && (k === 'apiVersion' || k === 'kind'))) continue; // (undefined: not in JSON)
    if (path.length === 1 && path[0] === 'metadata' && !['labels', 'annotations', 'finalizers', 'ownerReferences'].includes(k)) continue;
    const p = [...path, k];
    if (isLabelSelector(v)) out.set(`f:${k}`, new Map());
    else if (isObj(v) && !hasKeys(v)) continue; // an empty map or struct sets no field
    else if (isObj(v)) {
      const sub = fieldsOf(v, types, p);
      if (sub.size > 0) out.set(`f:${k}`, sub); // (metadata with only a name sets nothing)
    } else if (Array.isArray(v)) {
      const lt = types(p);
      if (lt.type === 'atomic') out.set(`f:${k}`, new Map());
      else {
        const items: FieldTree = new Map();
        for (const item of v) {
          const sub = lt.type === 'map' ? fieldsOf(item, types, p) : new Map<string, FieldTree>();
          if (lt.type === 'map') sub.set('.', new Map());
          items.set(itemKey(item, lt), sub);
        }
        out.set(`f:${k}`, items);
      }
    } else out.set(`f:${k}`, new Map());
  }
  return out;
}

/** Whether `o` has an own enumerable key (as `Object.keys(o).length > 0`, without the array). */
function hasKeys(o: Obj): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/** Leaf paths of a tree (each a list of FieldsV1 keys). */
export function leaves(t: FieldTree, prefix: readonly string[] = []): string[][] {
  const out: string[][] = [];
  for (const [k, child] of t) {
    if (child.size === 0) out.push([...prefix, k]);
    else out.push(...leaves(child, [...prefix, k]));
  }
  return out;
}

function has(t: FieldTree, path: readonly string[]): boolean {
  let cur: FieldTree | undefined = t;
  for (const k of path) {
    cur = cur?.get(k);
    if (cur === undefined) return false;
  }
  return true;
}

function ownsLeaf(t: FieldTree, path: readonly string[]): boolean {
  let cur: FieldTree | undefined = t;
  for (const k of path) {
    cur = cur?.get(k);
    if (cur === undefined) return false;
  }
  return cur.size === 0;
}

function remove(t: FieldTree, path: readonly string[]): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const child = t.get(head);
  if (child === undefined) return;
  if (rest.length === 0) t.delete(head);
  else {
    remove(child, rest);
    if (child.size === 0) t.delete(head);
  }
}

/** FieldsV1 JSON, keys sorted as kube-apiserver writes them (`.` first, then `f:`, `k:`, `v:` in byte order). */
export function toFieldsV1(t: FieldTree): Obj {
  const out: Obj = {};
  if (t.size === 0 || (t.size === 1 && t.has('.'))) return out; // (a member with nothing below: `{}`)
  const keys = [...t.keys()];
  if (keys.length > 1) keys.sort();
  for (const k of keys) out[k] = toFieldsV1(t.get(k) as FieldTree);
  return out;
}

export function fromFieldsV1(o: unknown): FieldTree {
  const out: FieldTree = new Map();
  if (isObj(o)) for (const [k, v] of Object.entries(o)) out.set(k, fromFieldsV1(v));
  return out;
}

/** kube's path notation: `.spec.containers[name="web"].image`. */
export function pathString(path: readonly string[]): string {
  let s = '';
  for (const k of path) {
    if (k === '.') continue;
    if (k.startsWith('f:')) s += `.${k.slice(2)}`;
    else if (k.startsWith('k:')) s += `[${Object.entries(JSON.parse(k.slice(2)) as Obj).map(([f, v]) => `${f}=${JSON.stringify(v)}`).join(',')}]`;
    else if (k.startsWith('v:')) s += `[=${k.slice(2)}]`;
  }
  return s;
}

/** The value at a FieldsV1 path in an object (undefined when absent). */
function valueAt(obj: unknown, path: readonly string[], types: ListTypes, names: string[] = []): unknown {
  const [head, ...rest] = path;
  if (head === undefined || head === '.') return obj;
  if (head.startsWith('f:')) {
    if (!isObj(obj)) return undefined;
    const f = head.slice(2);
    return valueAt(obj[f], rest, types, [...names, f]);
  }
  if (!Array.isArray(obj)) return undefined;
  const lt = types(names);
  const item = obj.find((i) => itemKey(i, lt) === head);
  return item === undefined ? undefined : valueAt(item, rest, types, names);
}

/** Removes the field at a FieldsV1 path from a (mutable, deep-copied) object. */
function removeAt(obj: unknown, path: readonly string[], types: ListTypes, names: string[] = []): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (head.startsWith('f:')) {
    if (!isObj(obj)) return;
    const f = head.slice(2);
    if (rest.length === 0 || (rest.length === 1 && rest[0] === '.')) delete obj[f];
    else {
      removeAt(obj[f], rest, types, [...names, f]);
      const child = obj[f];
      if ((isObj(child) && Object.keys(child).length === 0) || (Array.isArray(child) && child.length === 0)) delete obj[f];
    }
    return;
  }
  if (!Array.isArray(obj)) return;
  const lt = types(names);
  const i = obj.findIndex((x) => itemKey(x, lt) === head);
  if (i < 0) return;
  if (rest.length === 0 || (rest.length === 1 && rest[0] === '.')) obj.splice(i, 1);
  else removeAt(obj[i], rest, types, names);
}

/** Merges the applied configuration into the live object, lists by type. */
export function mergeApplied(live: unknown, applied: unknown, types: ListTypes, path: readonly string[] = []): unknown {
  if (Array.isArray(applied)) {
    const lt = types(path);
    if (lt.type === 'atomic' || !Array.isArray(live)) return applied;
    const out = [...live];
    for (const item of applied) {
      const i = out.findIndex((x) => itemKey(x, lt) === itemKey(item, lt));
      if (i < 0) out.push(item);
      else if (lt.type === 'map') out[i] = mergeApplied(out[i], item, types, path);
    }
    return out;
  }
  if (!isObj(applied) || !isObj(live) || isLabelSelector(applied)) return applied;
  const out: Obj = { ...live };
  for (const [k, v] of Object.entries(applied)) out[k] = mergeApplied(live[k], v, types, [...path, k]);
  return out;
}

/** One `metadata.managedFields` entry. */
export interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion?: string;
  readonly time?: string;
  readonly fieldsType?: string;
  readonly fieldsV1?: unknown;
  readonly subresource?: string;
}

function printManager(e: ManagedFieldsEntry): string {
  const name = `${JSON.stringify(e.manager)}${e.subresource ? ` with subresource ${JSON.stringify(e.subresource)}` : ''}`;
  // (kube-apiserver 1.20 names a manager without the entry's time)
  if (e.operation === 'Update') return `${name} using ${e.apiVersion ?? ''}`;
  return name;
}

/** 409 Conflict for an apply, with kube-apiserver's message and `FieldManagerConflict` causes. */
export function applyConflict(conflicts: readonly { entry: ManagedFieldsEntry; path: string }[]): StatusError {
  let message: string;
  const first = conflicts[0];
  if (conflicts.length === 1 && first !== undefined) message = `Apply failed with 1 conflict: conflict with ${printManager(first.entry)}: ${first.path}`;
  else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(printManager(c.entry), [...(byManager.get(printManager(c.entry)) ?? []), c.path]);
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) lines.push(`conflicts with ${m}:`, ...(byManager.get(m) ?? []).map((p) => `- ${p}`));
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(failure(409, 'Conflict', message, {
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: c.path })) as never,
  }));
}

/** Parses an apply body: YAML (a superset of JSON), one object. */
export function parseApplyBody(raw: Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = load(raw.toString('utf8'));
  } catch (e) {
    throw badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (tooDeepAt(parsed, MAX_BODY_DEPTH) !== undefined) throw badRequest(`error decoding YAML: exceeded max depth (${MAX_BODY_DEPTH} levels of nesting)`);
  return parsed;
}

const now = nowSeconds;

/**
 * The live object's entries, reconciled with it (see {@link reconcileEntries}). An object without
 * any gets one for `before-first-apply` (operation Update) owning all its fields, as
 * kube-apiserver gives the first apply to an object nobody owns fields of.
 */
function liveEntries(live: UnstructuredObject | undefined, types: ListTypes, fieldsOwnedItself: boolean, zeroValue: ZeroValueNode | undefined): readonly ManagedFieldsEntry[] {
  if (live === undefined) return [];
  const stored = (live.metadata?.managedFields ?? []) as readonly ManagedFieldsEntry[];
  const bare = { ...live, metadata: { ...(live.metadata ?? {}), managedFields: undefined } };
  if (stored.length === 0) return recordUpdate(undefined, bare, 'before-first-apply', types, undefined, fieldsOwnedItself, zeroValue);
  return reconcileEntries(stored, bare, types);
}

/**
 * Applies `applied` (already decoded) for `manager` to `live` (undefined: the object is created):
 * returns the new object with its `managedFields`. `fieldsOwnedItself`, `zeroValue`: see
 * {@link recordUpdate} (for the `before-first-apply` entry).
 */
export function applyWithOwnership(live: UnstructuredObject | undefined, applied: UnstructuredObject, manager: string, force: boolean, types: ListTypes, subresource?: 'status', fieldsOwnedItself = false, zeroValue?: ZeroValueNode): UnstructuredObject {
  const apiVersion = applied.apiVersion ?? live?.apiVersion ?? '';
  const entries = [...liveEntries(live, types, fieldsOwnedItself, zeroValue)];
  const applying = subresource === 'status' ? fieldsOf({ status: (applied as Obj)['status'] }, types) : fieldsOf(applied, types);
  if (subresource === 'status') { /* only status is applied */ } else applying.delete('f:status');
  const mine = (e: ManagedFieldsEntry): boolean => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === (subresource ?? '');
  const previous = fromFieldsV1(entries.find(mine)?.fieldsV1);
  const others = entries.filter((e) => !mine(e)).map((e) => ({ entry: e, fields: fromFieldsV1(e.fieldsV1) }));

  // 1. Conflicts: fields others own whose live value differs from the applied one.
  const conflicts: { entry: ManagedFieldsEntry; path: string; leaf: string[]; owner: number }[] = [];
  if (live !== undefined) {
    for (const leaf of leaves(applying)) {
      others.forEach((o, owner) => {
        if (!ownsLeaf(o.fields, leaf)) return;
        const a = valueAt(applied, leaf, types);
        const l = valueAt(live, leaf, types);
        if (leaf[leaf.length - 1] !== '.' && JSON.stringify(a) !== JSON.stringify(l)) conflicts.push({ entry: o.entry, path: pathString(leaf), leaf, owner });
      });
    }
  }
  if (conflicts.length > 0 && !force) throw applyConflict(conflicts);
  for (const c of conflicts) remove(others[c.owner]?.fields ?? new Map(), c.leaf);

  // 2. Fields this manager applied before and no longer applies go, unless someone else owns them.
  const base = structuredClone(live ?? {}) as Obj;
  // A list item this manager no longer applies goes whole (its `.` first, then nothing of it is left to find).
  const stale = leaves(previous).sort((x, y) => Number(y[y.length - 1] === '.') - Number(x[x.length - 1] === '.'));
  for (const leaf of stale) {
    if (has(applying, leaf) || others.some((o) => has(o.fields, leaf))) continue;
    removeAt(base, leaf, types);
  }

  // 3. Merge, and record ownership.
  const body: Obj = { ...(applied as Obj) };
  if (subresource !== 'status') delete body['status'];
  const merged = mergeApplied(base, body, types) as Obj;
  const next: ManagedFieldsEntry[] = [];
  for (const o of others) if (o.fields.size > 0) next.push({ ...o.entry, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(o.fields) });
  const at = entries.findIndex(mine);
  // An apply that owns what it owned before keeps its timestamp: a no-op apply changes nothing
  // (no new resourceVersion, no watch event), as with kube-apiserver.
  const fieldsV1 = toFieldsV1(applying);
  const before = at < 0 ? undefined : entries[at];
  const time = before?.time !== undefined && JSON.stringify(before.fieldsV1) === JSON.stringify(fieldsV1) ? before.time : now();
  const own: ManagedFieldsEntry = { manager, operation: 'Apply', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1, ...(subresource ? { subresource } : {}) };
  // An apply that sets no field (only empty maps, say) owns nothing: no entry, as kube-apiserver.
  if (applying.size > 0) next.splice(at < 0 ? next.length : Math.min(at, next.length), 0, own);
  const meta: Obj = { ...((merged['metadata'] as Obj | undefined) ?? {}), managedFields: next };
  if (next.length === 0) delete meta['managedFields']; // (nobody owns a field: none, as kube-apiserver)
  return { ...merged, metadata: meta } as UnstructuredObject;
}

const SHAPES = new WeakMap<ListTypes, FieldShapes>();

/** How the ownership comparison reads lists and maps, from a resource's list types (made once per list types). */
function shapesOf(types: ListTypes): FieldShapes {
  let shapes = SHAPES.get(types);
  if (shapes === undefined) {
    shapes = { listType: types, itemKey: (item, names) => itemKey(item, types(names)), isAtomicMap: isLabelSelector };
    SHAPES.set(types, shapes);
  }
  return shapes;
}

/**
 * A field owned whole (a leaf of the set) whose live value is a map, a struct or a keyed list
 * with fields in it: owned as all those fields (and itself), as kube-apiserver's field manager
 * reconciles sets with the schema before every write. Returns `set` itself when nothing is owned
 * whole that way.
 */
function reconcileSet(set: unknown, live: unknown, types: ListTypes, names: readonly string[] = []): unknown {
  if (!isObj(set)) return set;
  let out: Obj | undefined;
  let items: Map<string, unknown> | undefined;
  for (const k of Object.keys(set)) {
    const child = set[k];
    if (!isObj(child)) continue; // (not a set: left as it is)
    let next: unknown = child;
    if (k.startsWith('f:')) {
      if (!isObj(live)) continue;
      const name = k.slice(2);
      const v = live[name];
      if (!hasKeys(child)) {
        const granular = (isObj(v) && hasKeys(v) && !isLabelSelector(v)) || (Array.isArray(v) && v.length > 0 && types([...names, name]).type !== 'atomic');
        if (granular) {
          const whole = toFieldsV1(fieldsOf({ [name]: v }, types, names).get(k) ?? new Map());
          if (hasKeys(whole)) next = { '.': {}, ...whole };
        }
      } else next = reconcileSet(child, v, types, [...names, name]);
    } else if (k.startsWith('k:')) {
      if (!Array.isArray(live) || !hasKeys(child)) continue;
      items ??= itemsByKey(live, types(names));
      const item = items.get(k);
      if (item !== undefined) next = reconcileSet(child, item, types, names);
    }
    if (next !== child) {
      out ??= { ...set };
      out[k] = next;
    }
  }
  return out ?? set;
}

/** A list's items by their FieldsV1 key (the first item of each key), computed once per list. */
function itemsByKey(list: readonly unknown[], lt: ListType): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (const item of list) {
    const k = itemKey(item, lt);
    if (!m.has(k)) m.set(k, item);
  }
  return m;
}

/** Every node of a private copy (all of it is private: changed in place). */
function privateNodes(set: Obj, out: Set<Obj> = new Set()): Set<Obj> {
  out.add(set);
  for (const k of Object.keys(set)) {
    const c = set[k];
    if (isObj(c)) privateNodes(c, out);
  }
  return out;
}

/** What a write's ownership is recorded for: the object without its managedFields and status, or (`status`) only its status. */
function ownershipPart(o: UnstructuredObject | undefined, subresource: 'status' | undefined): Obj {
  if (subresource === 'status') return o?.['status'] === undefined ? {} : { status: o['status'] };
  const m = { ...((o?.metadata ?? {}) as Obj) };
  delete m['managedFields'];
  const x: Obj = { ...(o ?? {}), metadata: m };
  delete x['status'];
  return x;
}

function anyMember(set: unknown, paths: readonly (readonly string[])[]): boolean {
  for (const p of paths) if (isMember(set, p)) return true;
  return false;
}

function allMembers(set: unknown, paths: readonly (readonly string[])[]): boolean {
  for (const p of paths) if (!isMember(set, p)) return false;
  return true;
}

/** The entries with their sets reconciled with the live object (see {@link reconcileSet}); the same array when none changes. */
export function reconcileEntries(entries: readonly ManagedFieldsEntry[], live: unknown, types: ListTypes): readonly ManagedFieldsEntry[] {
  let out: ManagedFieldsEntry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as ManagedFieldsEntry;
    const fieldsV1 = reconcileSet(e.fieldsV1, live, types);
    if (fieldsV1 === e.fieldsV1) continue;
    out ??= [...entries];
    out[i] = { ...e, fieldsV1: canonicalFieldsV1(fieldsV1) };
  }
  return out ?? entries;
}

/**
 * The managed fields after a non-apply write (create, update, patch) by `manager`, as
 * kube-apiserver's field manager records them: every set is first reconciled with the live
 * object (see {@link reconcileSet}); the manager gains the fields the write added or changed,
 * which other managers lose (exactly those paths: a map owned whole as `{}` stays with its owner
 * when a key is written inside it); everyone loses the fields the write removed; empty sets go.
 * An object that exists without any entries stays without (kube-apiserver starts tracking those
 * at their first apply). `fieldsOwnedItself`, `zeroValue`: see {@link compareForOwnership}
 * (kube-apiserver: true, and the kind's structs held by value for a built-in kind).
 */
export function recordUpdate(old: UnstructuredObject | undefined, next: UnstructuredObject, manager: string, types: ListTypes, subresource?: 'status', fieldsOwnedItself = false, zeroValue?: ZeroValueNode): ManagedFieldsEntry[] {
  const stored = (old?.metadata?.managedFields ?? []) as readonly ManagedFieldsEntry[];
  // An object that exists without managedFields is not tracked by non-apply writes (until an
  // apply: see `before-first-apply`), as kube-apiserver 1.20's skip-non-applied manager does.
  if (old !== undefined && stored.length === 0) return [];
  const before = ownershipPart(old, subresource);
  const entries = old === undefined ? stored : reconcileEntries(stored, { ...old, metadata: { ...(old.metadata ?? {}), managedFields: undefined } }, types);
  const { added, modified, removed } = compareForOwnership(before, ownershipPart(next, subresource), shapesOf(types), fieldsOwnedItself, zeroValue);
  const gained = [...added, ...modified];
  if (gained.length === 0 && removed.length === 0) return [...entries];
  const out: ManagedFieldsEntry[] = [];
  let own: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    const isMine = e.manager === manager && e.operation === 'Update' && (e.subresource ?? '') === (subresource ?? '');
    const lose = isMine ? removed : [...gained, ...removed];
    let set: unknown = e.fieldsV1;
    if (anyMember(set, lose)) {
      const copy = cloneFieldsV1(set);
      for (const p of lose) removeMember(copy, p);
      set = copy;
    }
    if (isMine && !allMembers(set, gained)) {
      // Copies only the nodes on the way to the new members (a copy made above is private whole).
      set = set === e.fieldsV1 ? withMembers(set, gained) : withMembers(set, gained, privateNodes(set as Obj));
    }
    const fieldsV1 = canonicalFieldsV1(set);
    if (isMine && gained.length > 0) own = { ...e, fieldsV1 };
    else if (hasKeys(fieldsV1)) out.push({ ...e, fieldsV1 });
  }
  if (gained.length > 0) {
    let fieldsV1 = own?.fieldsV1;
    fieldsV1 ??= setOfMembers(gained);
    out.push({ manager, operation: 'Update', apiVersion: next.apiVersion ?? '', time: now(), fieldsType: 'FieldsV1', fieldsV1, ...(subresource ? { subresource } : {}) });
  }
  return out;
}
