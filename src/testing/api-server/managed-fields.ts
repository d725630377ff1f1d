import type { KubeObject } from '../../api/kube-object.js';
import { MERGE_KEYS, MERGED_PRIMITIVE_LISTS } from './patch.js';

/**
 * Field ownership for server-side apply, as kube-apiserver's field manager keeps it in
 * `metadata.managedFields` (FieldsV1), simplified:
 *
 * - objects are maps field by field; lists with a known merge key (`conditions` by `type`,
 *   `containers` by `name`, `ownerReferences` by `uid`, …) are maps item by item; `finalizers` is a
 *   set; every other list is atomic (one field), as for custom resources without list-type
 *   markers.
 * - an apply owns exactly the fields it sends; fields it owned before and leaves out are removed
 *   unless another manager owns them too; changing a field another manager owns is a conflict
 *   unless forced (the field then changes hands). Equal values are shared, never a conflict.
 * - other writes (create, update, patch) that name a `fieldManager`, or touch an object that
 *   already has managed fields, take over the fields they change (an `Update` entry).
 *
 * Entries are kept per manager, operation and subresource (as kube-apiserver ≥ 1.22 does).
 */

/** One element of a field path: `f:<name>`, `k:<json key>`, `v:<json value>`, or `.` (the node itself). */
type PathElement = string;

/** A set of field paths, each encoded as a JSON array of path elements. */
export type FieldSet = Set<string>;

/** One `metadata.managedFields` entry, parsed. */
export interface ManagedEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  readonly subresource: string | undefined;
  fields: FieldSet;
}

/** A conflict: `manager` owns `path` with another value than the apply sends. */
export interface FieldConflict {
  readonly manager: string;
  readonly path: string;
}

type Json = unknown;
type JsonMap = Record<string, Json>;

const IGNORED_METADATA = new Set([
  'name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName',
]);

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function enc(path: readonly PathElement[]): string {
  return JSON.stringify(path);
}

function dec(path: string): PathElement[] {
  return JSON.parse(path) as PathElement[];
}

function isMarker(path: string): boolean {
  return path.endsWith(',"."]') || path === '["."]';
}

/** How a list field is merged: atomic, a set of primitives, or a map keyed by one field. */
function listKind(field: string | undefined, items: readonly unknown[]): { kind: 'atomic' } | { kind: 'set' } | { kind: 'map'; key: string } {
  if (field !== undefined && MERGED_PRIMITIVE_LISTS.has(field) && items.every((v) => !isMap(v) && !Array.isArray(v))) return { kind: 'set' };
  const key = field !== undefined && Object.hasOwn(MERGE_KEYS, field) ? MERGE_KEYS[field] : undefined;
  if (key !== undefined && items.every((v) => isMap(v) && v[key] !== undefined)) return { kind: 'map', key };
  return { kind: 'atomic' };
}

function itemElement(key: string, item: JsonMap): PathElement {
  return `k:${JSON.stringify({ [key]: item[key] })}`;
}

/** The parts of an object field ownership is about (the status subresource: only `status`). */
export function ownedPart(object: KubeObject, options: { readonly hasStatus: boolean; readonly subresource: string | undefined }): JsonMap {
  const status = (object as { readonly status?: unknown }).status;
  if (options.subresource === 'status') return status === undefined ? {} : { status };
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(object)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && options.hasStatus) continue;
    if (k === 'metadata' && isMap(v)) {
      const meta: JsonMap = {};
      for (const [mk, mv] of Object.entries(v)) if (!IGNORED_METADATA.has(mk)) meta[mk] = mv;
      if (Object.keys(meta).length > 0) out[k] = meta;
      continue;
    }
    out[k] = v;
  }
  return out;
}

/** The field paths of `value` (an object's owned part). */
export function fieldSetOf(value: JsonMap): FieldSet {
  const out: FieldSet = new Set();
  const walk = (v: unknown, path: PathElement[], field: string | undefined): void => {
    if (isMap(v)) {
      if (path.length > 0 && !(path.length === 1 && path[0] === 'f:metadata')) out.add(enc([...path, '.']));
      for (const [k, child] of Object.entries(v)) walk(child, [...path, `f:${k}`], k);
    } else if (Array.isArray(v)) {
      const list = listKind(field, v);
      if (list.kind === 'atomic') out.add(enc(path));
      else if (list.kind === 'set') {
        out.add(enc([...path, '.']));
        for (const item of v) out.add(enc([...path, `v:${JSON.stringify(item)}`]));
      } else {
        out.add(enc([...path, '.']));
        for (const item of v as JsonMap[]) walk(item, [...path, itemElement(list.key, item)], undefined);
      }
    } else {
      out.add(enc(path));
    }
  };
  walk(value, [], undefined);
  return out;
}

/** Follows one path element; undefined when absent. */
function child(node: unknown, element: PathElement): unknown {
  if (element.startsWith('f:')) return isMap(node) ? node[element.slice(2)] : undefined;
  if (!Array.isArray(node)) return undefined;
  if (element.startsWith('k:')) {
    const key = JSON.parse(element.slice(2)) as JsonMap;
    const [name, value] = Object.entries(key)[0] ?? ['', undefined];
    return node.find((item) => isMap(item) && JSON.stringify(item[name]) === JSON.stringify(value));
  }
  if (element.startsWith('v:')) {
    const value = element.slice(2);
    return node.some((item) => JSON.stringify(item) === value) ? JSON.parse(value) : undefined;
  }
  return undefined;
}

/** The value at a (leaf) path, or undefined. */
function valueAt(root: unknown, path: readonly PathElement[]): unknown {
  let node = root;
  for (const e of path) {
    if (e === '.') break;
    node = child(node, e);
    if (node === undefined) return undefined;
  }
  return node;
}

/** Removes the field at `path` from `root` (mutating; `root` is a fresh copy). Markers remove an emptied node. */
function removeAt(root: JsonMap, path: readonly PathElement[]): void {
  const marker = path[path.length - 1] === '.';
  const target = marker ? path.slice(0, -1) : path;
  if (target.length === 0) return;
  const parent = valueAt(root, target.slice(0, -1));
  const last = target[target.length - 1] ?? '';
  if (marker) {
    const node = valueAt(root, target);
    const empty = (isMap(node) && Object.keys(node).length === 0) || (Array.isArray(node) && node.length === 0);
    if (!empty) return;
  }
  if (last.startsWith('f:') && isMap(parent)) {
    delete parent[last.slice(2)];
  } else if (Array.isArray(parent)) {
    const item = child(parent, last);
    const i = last.startsWith('v:') ? parent.findIndex((x) => JSON.stringify(x) === last.slice(2)) : parent.indexOf(item);
    if (i >= 0) parent.splice(i, 1);
  }
}

/** `applied` merged into `current`: maps field by field, keyed lists item by item, anything else replaced. */
export function mergeApplied(current: unknown, applied: unknown, field?: string): unknown {
  if (isMap(applied)) {
    const out: JsonMap = isMap(current) ? { ...current } : {};
    for (const [k, v] of Object.entries(applied)) out[k] = mergeApplied(out[k], v, k);
    return out;
  }
  if (Array.isArray(applied)) {
    const list = listKind(field, applied);
    if (list.kind === 'atomic' || !Array.isArray(current)) return structuredClone(applied);
    if (list.kind === 'set') {
      const out = [...current];
      for (const v of applied) if (!out.some((x) => JSON.stringify(x) === JSON.stringify(v))) out.push(v);
      return out;
    }
    const out = [...current];
    for (const item of applied as JsonMap[]) {
      const id = JSON.stringify(item[list.key]);
      const i = out.findIndex((x) => isMap(x) && JSON.stringify(x[list.key]) === id);
      if (i >= 0) out[i] = mergeApplied(out[i], item);
      else out.push(structuredClone(item));
    }
    return out;
  }
  return applied;
}

/** FieldsV1 JSON (`{"f:data":{".":{},"f:a":{}}}`) of a field set. */
export function toFieldsV1(set: FieldSet): JsonMap {
  const root: JsonMap = {};
  for (const p of [...set].sort()) {
    let node = root;
    for (const e of dec(p)) {
      const next = node[e];
      if (isMap(next)) node = next;
      else {
        const created: JsonMap = {};
        node[e] = created;
        node = created;
      }
    }
  }
  return root;
}

/** The field set of FieldsV1 JSON. */
export function fromFieldsV1(fields: unknown): FieldSet {
  const out: FieldSet = new Set();
  const walk = (node: unknown, path: PathElement[]): void => {
    if (!isMap(node)) return;
    const keys = Object.keys(node);
    if (keys.length === 0 && path.length > 0) out.add(enc(path));
    for (const k of keys) {
      if (k === '.') out.add(enc([...path, '.']));
      else walk(node[k], [...path, k]);
    }
  };
  walk(fields, []);
  return out;
}

/** Parses `metadata.managedFields` (entries of other shapes are dropped). */
export function parseManagedFields(value: unknown): ManagedEntry[] {
  if (!Array.isArray(value)) return [];
  const out: ManagedEntry[] = [];
  for (const e of value) {
    if (!isMap(e) || typeof e['manager'] !== 'string') continue;
    const operation = e['operation'] === 'Apply' ? 'Apply' : 'Update';
    out.push({
      manager: e['manager'],
      operation,
      apiVersion: typeof e['apiVersion'] === 'string' ? e['apiVersion'] : '',
      time: typeof e['time'] === 'string' ? e['time'] : '',
      subresource: typeof e['subresource'] === 'string' ? e['subresource'] : undefined,
      fields: fromFieldsV1(e['fieldsV1']),
    });
  }
  return out;
}

/** `metadata.managedFields` of parsed entries (empty ones left out). */
export function serializeManagedFields(entries: readonly ManagedEntry[]): JsonMap[] {
  return entries
    .filter((e) => e.fields.size > 0)
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(e.fields),
      ...(e.subresource === undefined ? {} : { subresource: e.subresource }),
    }));
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function sameSet(a: FieldSet, b: FieldSet): boolean {
  return a.size === b.size && [...a].every((p) => b.has(p));
}

/** The entry of `manager` for `operation` and `subresource`, created when missing. */
function entryOf(entries: ManagedEntry[], manager: string, operation: 'Apply' | 'Update', subresource: string | undefined, apiVersion: string): ManagedEntry {
  let e = entries.find((x) => x.manager === manager && x.operation === operation && x.subresource === subresource);
  if (e === undefined) {
    e = { manager, operation, apiVersion, time: now(), subresource, fields: new Set() };
    entries.push(e);
  }
  return e;
}

/** The result of planning an apply. */
export interface ApplyPlan {
  /** The new object (current merged with the configuration, fields given up removed). */
  readonly object: KubeObject;
  /** Its `metadata.managedFields`. */
  readonly managedFields: JsonMap[];
}

/**
 * Plans an apply of `config` by `manager` to `current` (undefined: the object is created).
 * Returns the conflicts when there are any and `force` is not set.
 */
export function planApply(
  current: KubeObject | undefined,
  config: KubeObject,
  options: {
    readonly manager: string;
    readonly force: boolean;
    readonly apiVersion: string;
    readonly hasStatus: boolean;
    readonly subresource: string | undefined;
  },
): ApplyPlan | { readonly conflicts: readonly FieldConflict[] } {
  const part = { hasStatus: options.hasStatus, subresource: options.subresource };
  const ownedConfig = ownedPart(config, part);
  const applied = fieldSetOf(ownedConfig);
  const entries = parseManagedFields(current?.metadata?.managedFields);
  const currentPart = current === undefined ? {} : ownedPart(current, part);
  const conflicts: FieldConflict[] = [];
  for (const e of entries) {
    if (e.manager === options.manager) continue;
    for (const p of e.fields) {
      if (!applied.has(p) || isMarker(p)) continue;
      const path = dec(p);
      if (JSON.stringify(valueAt(currentPart, path)) !== JSON.stringify(valueAt(ownedConfig, path))) conflicts.push({ manager: e.manager, path: p });
    }
  }
  if (conflicts.length > 0 && !options.force) return { conflicts };
  for (const c of conflicts) {
    for (const e of entries) if (e.manager === c.manager) e.fields.delete(c.path);
  }
  const mine = entryOf(entries, options.manager, 'Apply', options.subresource, options.apiVersion);
  const givenUp = [...mine.fields].filter((p) => !applied.has(p));
  const { managedFields: _sent, ...configMeta } = config.metadata ?? {};
  const merged = mergeApplied(current ?? {}, { ...config, metadata: configMeta }) as JsonMap;
  if (current !== undefined) {
    // Deepest first (a node's fields before the node), so a node emptied by removing its fields can go too.
    const depth = (p: string): number => dec(p).length - (isMarker(p) ? 1 : 0);
    givenUp.sort((a, b) => depth(b) - depth(a) || Number(isMarker(a)) - Number(isMarker(b)));
    const ownedByOthers = (p: string): boolean => entries.some((e) => e !== mine && e.fields.has(p));
    for (const p of givenUp) {
      if (ownedByOthers(p)) continue;
      const path = dec(p);
      const parent = path[path.length - 2] ?? '';
      if (parent.startsWith('k:')) {
        if (isMarker(p)) {
          // A list item goes when no other manager owns any field of it.
          const prefix = enc(path.slice(0, -1)).slice(0, -1);
          if (!entries.some((e) => e !== mine && [...e.fields].some((f) => f.startsWith(prefix)))) removeAt(merged, path.slice(0, -1));
          continue;
        }
        const key = Object.keys(JSON.parse(parent.slice(2)) as JsonMap)[0];
        if (path[path.length - 1] === `f:${key}`) continue; // the item's key goes with the item
      }
      removeAt(merged, path);
    }
  }
  if (!sameSet(mine.fields, applied)) {
    mine.fields = applied;
    mine.time = now();
    mine.apiVersion = options.apiVersion;
  }
  return { object: merged as KubeObject, managedFields: serializeManagedFields(entries) };
}

/**
 * The managed fields after a non-apply write by `manager` changed `old` into `next`: the manager
 * takes over every field it changed, fields that went away are nobody's.
 */
export function trackUpdate(
  old: KubeObject | undefined,
  next: KubeObject,
  base: unknown,
  options: { readonly manager: string; readonly apiVersion: string; readonly hasStatus: boolean; readonly subresource: string | undefined },
): JsonMap[] {
  const entries = parseManagedFields(base);
  const whole = { hasStatus: false, subresource: undefined };
  const before = old === undefined ? {} : ownedPart(old, whole);
  const after = ownedPart(next, whole);
  const o = fieldSetOf(before);
  const n = fieldSetOf(after);
  const changed = [...n].filter((p) => !o.has(p) || (!isMarker(p) && JSON.stringify(valueAt(before, dec(p))) !== JSON.stringify(valueAt(after, dec(p)))));
  const removed = [...o].filter((p) => !n.has(p));
  const subresource = options.subresource;
  for (const e of entries) {
    for (const p of removed) e.fields.delete(p);
    for (const p of changed) if (!isMarker(p)) e.fields.delete(p);
  }
  if (changed.length > 0) {
    const mine = entryOf(entries, options.manager, 'Update', subresource, options.apiVersion);
    for (const p of changed) mine.fields.add(p);
    mine.time = now();
    mine.apiVersion = options.apiVersion;
  }
  return serializeManagedFields(entries);
}

/** kube-apiserver's message for apply conflicts. */
export function conflictMessage(conflicts: readonly FieldConflict[]): string {
  const fields = conflicts.map((c) => ({ manager: c.manager, field: fieldPathText(c.path) }));
  const managers = [...new Set(fields.map((f) => f.manager))];
  const head = `Apply failed with ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}: `;
  if (conflicts.length === 1) return `${head}conflict with "${fields[0]?.manager ?? ''}": ${fields[0]?.field ?? ''}`;
  return head + managers.map((m) => `conflicts with "${m}":\n${fields.filter((f) => f.manager === m).map((f) => `- ${f.field}`).join('\n')}`).join('\n');
}

/** A field path as kube-apiserver prints it: `.data.a`, `.status.conditions[type="Ready"].status`. */
export function fieldPathText(path: string): string {
  let out = '';
  for (const e of dec(path)) {
    if (e === '.') continue;
    if (e.startsWith('f:')) out += `.${e.slice(2)}`;
    else if (e.startsWith('k:')) {
      const key = JSON.parse(e.slice(2)) as JsonMap;
      out += `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    } else if (e.startsWith('v:')) out += `[=${e.slice(2)}]`;
  }
  return out;
}
