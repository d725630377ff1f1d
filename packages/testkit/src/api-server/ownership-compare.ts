/**
 * The comparison kube-apiserver's field manager (structured-merge-diff) makes between an object
 * before and after a write, as FieldsV1 key paths: fields `added`, `modified` and `removed`.
 * Maps and keyed lists are walked field by field and item by item; scalars, atomic lists, atomic
 * maps (label selectors) and maps or lists empty on both sides are leaves. A field present on one
 * side only is added or removed itself as well as everything below it (with `.` in FieldsV1 when
 * it has members below). Ownership follows from it: a non-apply write's manager gains `added` and
 * `modified`; every other manager loses exactly those paths (members deeper or shallower stay);
 * everyone loses `removed`.
 */

import { sameJson } from './json-equal.js';
import type { ZeroValueNode } from './zero-value-fields.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How the walk reads a list or a map: the caller's schema knowledge. */
export interface FieldShapes {
  /** The list type at `names` (field names from the root). */
  listType(names: readonly string[]): { readonly type: 'map' | 'set' | 'atomic' };
  /** The FieldsV1 key of a list item (`k:{…}` or `v:…`). */
  itemKey(item: unknown, names: readonly string[]): string;
  /** Whether an object value is owned whole (an atomic map, as a label selector). */
  isAtomicMap(v: unknown): boolean;
}

/** The paths a write changed. */
export interface OwnershipChanges {
  readonly added: string[][];
  readonly modified: string[][];
  readonly removed: string[][];
}

/** Metadata fields whose ownership is tracked (the rest is the server's). */
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

const differs = (a: unknown, b: unknown): boolean => a !== b && (a === undefined || b === undefined || !sameJson(a, b));
const EMPTY: Obj = {};
const isEnumerableOwn = Object.prototype.propertyIsEnumerable;
const EMPTY_LIST: readonly unknown[] = [];

/**
 * Whether two values are plain JSON data with the same JSON text (key order counts, keys whose
 * value is undefined left out). False, not an answer, for anything else (class instances,
 * `toJSON`, functions, non-finite numbers): those are walked as before.
 */
function samePlainJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || Number.isFinite(a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!samePlainJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const x = a as Obj;
  const y = b as Obj;
  if (typeof x['toJSON'] === 'function' || typeof y['toJSON'] === 'function') return false;
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  if (kx.length !== ky.length) return false;
  for (let i = 0; i < kx.length; i++) {
    const k = kx[i] as string;
    if (k !== ky[i]) return false;
    const v = x[k];
    if (v === undefined || y[k] === undefined) return false;
    if (!samePlainJson(v, y[k])) return false;
  }
  return true;
}

const isEmptyValue = (v: unknown): boolean => v === undefined || (isObj(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);

/**
 * Compares `before` and `after` (objects from the root, `apiVersion`, `kind` and untracked
 * metadata left out). `fieldsOwnedItself`: whether a map or list field that appears gets a path
 * of its own (`.`), as kube-apiserver gives one to a custom resource's map, struct or list and to
 * a built-in kind's map, list or pointer. `zeroValue` (built-in kinds): the fields Go's zero value
 * of the struct around them already has (structs held by value, fields without `omitempty`): one
 * of those is taken as `{}`, `[]` or null on a side where its parent is there and it is not, so it
 * never appears or goes itself.
 */
export function compareForOwnership(before: unknown, after: unknown, shapes: FieldShapes, fieldsOwnedItself: boolean, zeroValue?: ZeroValueNode): OwnershipChanges {
  const walk = new OwnershipWalk(shapes, fieldsOwnedItself, zeroValue);
  walk.fields(before, after, 0);
  return walk.out;
}

/** One comparison's state: the changes found so far and the path walked to (methods, not closures made per comparison). */
class OwnershipWalk {
  readonly out: OwnershipChanges = { added: [], modified: [], removed: [] };
  private readonly path: string[] = [];
  private readonly names: string[] = [];
  /** The zero-value node of each struct walked into (undefined: none known, or not a built-in kind). */
  private readonly nodes: (ZeroValueNode | undefined)[];

  constructor(
    private readonly shapes: FieldShapes,
    private readonly fieldsOwnedItself: boolean,
    zeroValue: ZeroValueNode | undefined,
  ) {
    this.nodes = [zeroValue];
  }

  /** The zero value standing for the absent field `k` the Go zero value has, next to `other` (undefined for a scalar). */
  private zeroLike(other: unknown, k: string): unknown {
    if (other === null) return null;
    if (isObj(other)) return EMPTY;
    if (!Array.isArray(other)) return undefined;
    this.names.push(k);
    const atomic = this.shapes.listType(this.names).type === 'atomic';
    this.names.pop();
    return atomic ? null : EMPTY_LIST;
  }

  private leaf(a: unknown, b: unknown): void {
    if (a === undefined && b !== undefined) this.out.added.push([...this.path]);
    else if (b === undefined && a !== undefined) this.out.removed.push([...this.path]);
    else if (differs(a, b)) this.out.modified.push([...this.path]);
  }

  fields(a: unknown, b: unknown, depth: number): void {
    const ao = isObj(a) ? a : EMPTY;
    const bo = isObj(b) ? b : EMPTY;
    const inMetadata = depth === 1 && this.names[0] === 'metadata';
    // Every key of `a`, then those only `b` has (the order of the union of both key lists).
    for (const k of Object.keys(ao)) this.field(ao, bo, k, depth, inMetadata, a === ao, b === bo);
    for (const k of Object.keys(bo)) if (!isEnumerableOwn.call(ao, k)) this.field(ao, bo, k, depth, inMetadata, a === ao, b === bo);
  }

  private field(ao: Obj, bo: Obj, k: string, depth: number, inMetadata: boolean, aThere: boolean, bThere: boolean): void {
    if (depth === 0 && (k === 'apiVersion' || k === 'kind')) return;
    if (inMetadata && !OWNED_METADATA.has(k)) return;
    let av = Object.hasOwn(ao, k) ? ao[k] : undefined;
    let bv = Object.hasOwn(bo, k) ? bo[k] : undefined;
    const node = this.nodes[this.nodes.length - 1];
    if (node !== undefined && (av === undefined) !== (bv === undefined) && node.inZeroValue(k)) {
      // A field the zero value of its struct has: there wherever its parent is, as `{}` (a
      // struct, or a nil map walked as an empty one), or as null (Go writes a nil list as null:
      // an atomic list going from null to `[]` changed, a granular one is walked item by item).
      // (Scalars are left alone.)
      if (av === undefined && aThere) av = this.zeroLike(bv, k);
      if (bv === undefined && bThere) bv = this.zeroLike(av, k);
    }
    // The same JSON on both sides (plain data): nothing below changed, nothing to record.
    if (av !== undefined && bv !== undefined && av !== bv && typeof av === 'object' && typeof bv === 'object' && samePlainJson(av, bv)) return;
    this.path.push(`f:${k}`);
    this.names.push(k);
    this.nodes.push(node?.child(k));
    const walked = this.value(av, bv, depth + 1);
    // The field itself, when it appears or goes (metadata is the server's).
    if (walked && !(depth === 0 && k === 'metadata')) {
      if (av === undefined && this.fieldsOwnedItself) this.out.added.push([...this.path]);
      else if (bv === undefined) this.out.removed.push([...this.path]);
    }
    this.nodes.pop();
    this.names.pop();
    this.path.pop();
  }

  /** Compares one field's values; whether it walked into them (else it was a leaf). */
  private value(a: unknown, b: unknown, depth: number): boolean {
    // One value (an unchanged part the write shares with the stored object): nothing below changed.
    if (a === b) return false;
    const aMap = a === undefined || isObj(a);
    const bMap = b === undefined || isObj(b);
    if (aMap && bMap && !this.shapes.isAtomicMap(a) && !this.shapes.isAtomicMap(b) && !(isEmptyValue(a) && isEmptyValue(b))) {
      this.fields(a, b, depth);
      return true;
    }
    const aList = a === undefined || Array.isArray(a);
    const bList = b === undefined || Array.isArray(b);
    if (aList && bList) {
      const lt = this.shapes.listType(this.names);
      if (lt.type !== 'atomic' && !(isEmptyValue(a) && isEmptyValue(b))) {
        if (!differs(a, b)) return true; // (the usual case: a list an update leaves alone)
        this.items(a as unknown[] | undefined, b as unknown[] | undefined, lt.type === 'map', depth);
        return true;
      }
    }
    this.leaf(a, b);
    return false;
  }

  private byKey(list: readonly unknown[] | undefined): Map<string, unknown> {
    const m = new Map<string, unknown>();
    for (const item of list ?? []) {
      const ik = this.shapes.itemKey(item, this.names);
      if (!m.has(ik)) m.set(ik, item);
    }
    return m;
  }

  private items(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined, keyed: boolean, depth: number): void {
    const am = this.byKey(a);
    const bm = this.byKey(b);
    for (const ik of new Set([...am.keys(), ...bm.keys()])) {
      const ai = am.get(ik);
      const bi = bm.get(ik);
      this.path.push(ik);
      if (keyed && differs(ai, bi)) this.fields(ai, bi, depth);
      if (ai === undefined) this.out.added.push([...this.path]);
      else if (bi === undefined) this.out.removed.push([...this.path]);
      this.path.pop();
    }
  }
}
