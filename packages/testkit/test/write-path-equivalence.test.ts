/**
 * The write path's hot functions, rewritten for speed, against the versions they replaced (kept
 * here as the reference): over random objects and random changes to them (shared parts, equal
 * copies, replaced, added and removed fields, reordered keys, lists, label selectors, values
 * JSON.stringify treats specially), each rewrite must give exactly the reference's answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareForOwnership, type FieldShapes, type OwnershipChanges } from '../src/api-server/ownership-compare.js';
import { sameJson } from '../src/api-server/json-equal.js';
import { builtinListTypes, schemaListTypes, type ListTypes } from '../src/api-server/server-side-apply.js';
import { canonicalFieldsV1, cloneFieldsV1, setOfMembers, withMembers } from '../src/api-server/fields-v1.js';
import { copyKnownFields } from '../src/api-server/openapi-schemas.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (o: Obj): boolean => Object.keys(o).length === 0;
function setKey(o: Obj, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Reference: adds `path` as a member of a private set, one node at a time (what `withMembers` and `setOfMembers` must equal); a member on the way that gains children keeps its membership (`.`). */
function addMember(set: Obj, path: readonly string[]): void {
  let t = set;
  for (let i = 0; i < path.length; i++) {
    const k = path[i] as string;
    let c = Object.hasOwn(t, k) ? t[k] : undefined;
    if (!isObj(c)) {
      c = {};
      setKey(t, k, c);
    } else if (i < path.length - 1 && isEmpty(c)) setKey(c, '.', {}); // a leaf member gaining members below
    t = c as Obj;
  }
  if (!isEmpty(t) && !Object.hasOwn(t, '.')) setKey(t, '.', {});
}


// ---- reference: compareForOwnership before the rewrite ----
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);
const differs = (a: unknown, b: unknown): boolean => a !== b && (a === undefined || b === undefined || !sameJson(a, b));
const isEmptyValue = (v: unknown): boolean => v === undefined || (isObj(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);

function referenceCompareForOwnership(before: unknown, after: unknown, shapes: FieldShapes, fieldsOwnedItself: boolean): OwnershipChanges {
  const out: OwnershipChanges = { added: [], modified: [], removed: [] };
  const path: string[] = [];
  const names: string[] = [];

  const leaf = (a: unknown, b: unknown): void => {
    if (a === undefined && b !== undefined) out.added.push([...path]);
    else if (b === undefined && a !== undefined) out.removed.push([...path]);
    else if (differs(a, b)) out.modified.push([...path]);
  };

  const fields = (a: unknown, b: unknown, depth: number): void => {
    const ao = isObj(a) ? a : {};
    const bo = isObj(b) ? b : {};
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    const inMetadata = depth === 1 && names[0] === 'metadata';
    for (const k of keys) {
      if (depth === 0 && (k === 'apiVersion' || k === 'kind')) continue;
      if (inMetadata && !OWNED_METADATA.has(k)) continue;
      const av = Object.hasOwn(ao, k) ? ao[k] : undefined;
      const bv = Object.hasOwn(bo, k) ? bo[k] : undefined;
      path.push(`f:${k}`);
      names.push(k);
      const walked = value(av, bv, depth + 1);
      // The field itself, when it appears or goes (metadata is the server's).
      if (walked && !(depth === 0 && k === 'metadata')) {
        if (av === undefined && fieldsOwnedItself) out.added.push([...path]);
        else if (bv === undefined) out.removed.push([...path]);
      }
      names.pop();
      path.pop();
    }
  };

  /** Compares one field's values; whether it walked into them (else it was a leaf). */
  const value = (a: unknown, b: unknown, depth: number): boolean => {
    // One value (an unchanged part the write shares with the stored object): nothing below changed.
    if (a === b) return false;
    const aMap = a === undefined || isObj(a);
    const bMap = b === undefined || isObj(b);
    if (aMap && bMap && !shapes.isAtomicMap(a) && !shapes.isAtomicMap(b) && !(isEmptyValue(a) && isEmptyValue(b))) {
      fields(a, b, depth);
      return true;
    }
    const aList = a === undefined || Array.isArray(a);
    const bList = b === undefined || Array.isArray(b);
    const lt = shapes.listType(names);
    if (aList && bList && lt.type !== 'atomic' && !(isEmptyValue(a) && isEmptyValue(b))) {
      if (!differs(a, b)) return true; // (the usual case: a list an update leaves alone)
      items(a as unknown[] | undefined, b as unknown[] | undefined, lt.type === 'map', depth);
      return true;
    }
    leaf(a, b);
    return false;
  };

  const byKey = (list: readonly unknown[] | undefined): Map<string, unknown> => {
    const m = new Map<string, unknown>();
    for (const item of list ?? []) {
      const ik = shapes.itemKey(item, names);
      if (!m.has(ik)) m.set(ik, item);
    }
    return m;
  };

  const items = (a: readonly unknown[] | undefined, b: readonly unknown[] | undefined, keyed: boolean, depth: number): void => {
    const am = byKey(a);
    const bm = byKey(b);
    for (const ik of new Set([...am.keys(), ...bm.keys()])) {
      const ai = am.get(ik);
      const bi = bm.get(ik);
      path.push(ik);
      if (keyed && differs(ai, bi)) fields(ai, bi, depth);
      if (ai === undefined) out.added.push([...path]);
      else if (bi === undefined) out.removed.push([...path]);
      path.pop();
    }
  };

  fields(before, after, 0);
  return out;
}

// ---- random objects and changes ----
const KEYS = ['spec', 'metadata', 'labels', 'annotations', 'finalizers', 'containers', 'name', 'env', 'value', 'ports', 'containerPort', 'port', 'protocol', 'selector', 'matchLabels', 'status', 'image', 'a', 'b', 'list'];
const special = fc.constantFrom<unknown>(Number.NaN, Infinity, -0, undefined, new Date(0), { toJSON: () => 'x' });
const leaf = fc.oneof({ weight: 6, arbitrary: fc.oneof(fc.constantFrom('web', 'TCP', 'x', ''), fc.integer({ min: -2, max: 80 }), fc.boolean(), fc.constant(null)) }, { weight: 1, arbitrary: special });
const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ maxDepth: 5, depthIdentifier: 'v' }, leaf, fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 5 }), fc.array(tie('value'), { maxLength: 4 })),
}));
const root = fc.record({ apiVersion: fc.constant('v1'), kind: fc.constant('Pod'), metadata: fc.dictionary(fc.constantFrom('name', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'uid'), jsonValue, { maxKeys: 4 }), spec: jsonValue, status: jsonValue }, { requiredKeys: [] });

/** A deterministic change of `v` driven by `choices`: shared, copied, replaced, keys dropped, added or reordered. */
function change(v: unknown, choices: number[], fresh: unknown[]): unknown {
  const c = choices.length > 0 ? (choices.pop() as number) : 0;
  switch (c % 7) {
    case 0: return v; // shared
    case 1: return copy(v); // an equal copy
    case 2: return fresh.length > 0 ? fresh.pop() : undefined; // replaced
    default: break;
  }
  if (Array.isArray(v)) {
    const out = v.map((x) => change(x, choices, fresh));
    if (c % 7 === 3) out.pop();
    if (c % 7 === 4 && fresh.length > 0) out.push(fresh.pop());
    if (c % 7 === 5) out.reverse();
    return out;
  }
  if (isObj(v) && Object.getPrototypeOf(v) === Object.prototype && typeof v['toJSON'] !== 'function') {
    let keys = Object.keys(v);
    if (c % 7 === 5) keys = keys.reverse();
    const out: Obj = {};
    for (const k of keys) {
      if (c % 7 === 3 && k === keys[0]) continue;
      out[k] = change(v[k], choices, fresh);
    }
    if (c % 7 === 4 && fresh.length > 0) out[KEYS[choices.length % KEYS.length] as string] = fresh.pop();
    return out;
  }
  return v;
}
function copy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copy);
  if (isObj(v) && Object.getPrototypeOf(v) === Object.prototype && typeof v['toJSON'] !== 'function') {
    const out: Obj = {};
    for (const k of Object.keys(v)) out[k] = copy(v[k]);
    return out;
  }
  return v;
}

const itemKeyShapes = (types: ListTypes): FieldShapes => ({
  listType: types,
  itemKey: (item, names) => {
    const lt = types(names);
    return lt.type === 'map' && isObj(item) ? `k:${JSON.stringify(Object.fromEntries(lt.keys.map((k) => [k, item[k]])))}` : `v:${JSON.stringify(item)}`;
  },
  isAtomicMap: (v) => isObj(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k === 'matchLabels'),
});
const crdTypes = schemaListTypes({ properties: { spec: { properties: { list: { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: {} }, finalizers: { 'x-kubernetes-list-type': 'set' } } } } });

describe('compareForOwnership against the reference', () => {
  it('records the same added, modified and removed paths, in the same order', () => {
    fc.assert(fc.property(root, fc.array(fc.nat(), { maxLength: 60 }), fc.array(jsonValue, { maxLength: 8 }), fc.boolean(), fc.boolean(), (before, choices, fresh, crd, owned) => {
      const after = change(before, [...choices], [...fresh]);
      const shapes = itemKeyShapes(crd ? crdTypes : builtinListTypes);
      const got: OwnershipChanges = compareForOwnership(before, after, shapes, owned);
      expect(got).toEqual(referenceCompareForOwnership(before, after, shapes, owned));
      // Creates compare with nothing.
      expect(compareForOwnership({ metadata: {} }, after, shapes, owned)).toEqual(referenceCompareForOwnership({ metadata: {} }, after, shapes, owned));
    }), { numRuns: 3000 });
  });
});

// ---- reference: canonicalFieldsV1 before it remembered canonical sets ----
function referenceCanonical(v: unknown): Obj {
  if (!isObj(v)) return {};
  let same = Object.getPrototypeOf(v) === Object.prototype;
  if (same && Object.keys(v).length === 0) return v;
  const keys = Object.keys(v);
  const children = keys.map((k) => referenceCanonical(v[k]));
  keys.forEach((k, i) => {
    if (children[i] !== v[k] || (i > 0 && !((keys[i - 1] as string) < k))) same = false;
  });
  if (keys.length === 1 && keys[0] === '.') return {};
  if (same) return v;
  const order = keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  const out: Obj = {};
  for (const i of order) setKey(out, keys[i] as string, children[i]);
  return out;
}

const SET_KEYS = ['.', 'f:a', 'f:b', 'f:spec', 'f:metadata', 'f:labels', 'k:{"name":"x"}', 'v:"y"', '__proto__'];
const { set: fieldSet } = fc.letrec<{ set: unknown }>((tie) => ({
  set: fc.oneof({ maxDepth: 4, depthIdentifier: 's' }, fc.constant({}), fc.constantFrom<unknown>(null, 'x', 1, [], [{}]), fc.dictionary(fc.constantFrom(...SET_KEYS), tie('set'), { maxKeys: 4 })),
}));
const paths = fc.array(fc.array(fc.constantFrom(...SET_KEYS.filter((k) => k !== '.')), { minLength: 1, maxLength: 4 }), { maxLength: 6 });

describe('FieldsV1 additions and canonical form against the reference', () => {
  it('withMembers: the canonical set of a deep copy with the members added, the set itself unchanged', () => {
    fc.assert(fc.property(fieldSet, paths, fc.boolean(), (set, add, canonicalFirst) => {
      const input = canonicalFirst ? canonicalFieldsV1(set) : set;
      const before = JSON.stringify(input);
      const reference = cloneFieldsV1(input);
      for (const p of add) addMember(reference, p);
      const got = withMembers(input, add);
      expect(JSON.stringify(canonicalFieldsV1(got))).toBe(JSON.stringify(referenceCanonical(reference)));
      expect(JSON.stringify(input)).toBe(before);
      // Twice (the second time from remembered canonical sets), and on a private copy changed in place.
      expect(JSON.stringify(canonicalFieldsV1(withMembers(input, add)))).toBe(JSON.stringify(referenceCanonical(reference)));
    }), { numRuns: 3000 });
  });

  it('setOfMembers: the canonical set addMember builds from nothing, keys in the same order', () => {
    fc.assert(fc.property(paths, fc.array(fc.array(fc.constantFrom('f:a', 'f:b', '.', 'k:{"x":1}'), { minLength: 1, maxLength: 5 }), { maxLength: 10 }), (some, more) => {
      const all = [...some, ...more];
      const reference: Obj = {};
      for (const p of all) addMember(reference, p);
      expect(JSON.stringify(setOfMembers(all))).toBe(JSON.stringify(referenceCanonical(reference)));
    }), { numRuns: 3000 });
  });

  it("canonicalFieldsV1 answers as the reference, and gives a canonical set back as it is", () => {
    fc.assert(fc.property(fieldSet, (set) => {
      const first = canonicalFieldsV1(set);
      expect(JSON.stringify(first)).toBe(JSON.stringify(referenceCanonical(set)));
      expect(canonicalFieldsV1(first)).toBe(first);
      expect(JSON.stringify(canonicalFieldsV1(set))).toBe(JSON.stringify(first));
    }), { numRuns: 3000 });
  });
});

describe('copyKnownFields sharing FieldsV1 sets', () => {
  const plainLeaf = fc.oneof(fc.constantFrom('web', 'TCP', ''), fc.integer({ min: -2, max: 80 }), fc.boolean(), fc.constant(null));
  const { value: plainValue } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof({ maxDepth: 4, depthIdentifier: 'p' }, plainLeaf, fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4, noNullPrototype: true }), fc.array(tie('value'), { maxLength: 3 })),
  }));
  const { set: plainSet } = fc.letrec<{ set: unknown }>((tie) => ({
    set: fc.oneof({ maxDepth: 4, depthIdentifier: 'ps' }, fc.constant({}), fc.dictionary(fc.constantFrom(...SET_KEYS.filter((k) => k !== '__proto__')), tie('set'), { maxKeys: 4, noNullPrototype: true })),
  }));
  const entry = fc.record({ manager: fc.constantFrom('a', 'b'), operation: fc.constantFrom('Update', 'Apply'), fieldsType: fc.constant('FieldsV1'), fieldsV1: plainSet, unknown: plainValue }, { requiredKeys: ['manager'], noNullPrototype: true });
  const pod = fc.record({
    apiVersion: fc.constant('v1'), kind: fc.constant('Pod'),
    metadata: fc.record({ name: fc.constant('p'), labels: plainValue, managedFields: fc.oneof(fc.array(entry, { maxLength: 3 }), plainValue), unknownField: plainValue }, { requiredKeys: [], noNullPrototype: true }),
    spec: plainValue, status: plainValue, unknownTop: plainValue,
  }, { requiredKeys: [], noNullPrototype: true });

  it('copies the same JSON as the deep copy, the sets themselves shared', () => {
    fc.assert(fc.property(pod, (p) => {
      const shared = copyKnownFields(p, 'io.k8s.api.core.v1.Pod', true) as Obj;
      expect(JSON.stringify(shared)).toBe(JSON.stringify(copyKnownFields(p, 'io.k8s.api.core.v1.Pod')));
      const sent = (p.metadata as Obj | undefined)?.['managedFields'];
      const got = (shared['metadata'] as Obj | undefined)?.['managedFields'];
      if (Array.isArray(sent) && Array.isArray(got)) {
        sent.forEach((e, i) => {
          if (isObj(e) && typeof e['fieldsV1'] === 'object' && e['fieldsV1'] !== null) expect((got[i] as Obj)['fieldsV1']).toBe(e['fieldsV1']);
        });
      }
    }), { numRuns: 2000 });
  });
});
