/**
 * The OpenAPI schemas of the emulated Kubernetes version (`data/kube-openapi.json`, the definitions
 * of its published swagger.json): served whole at `/openapi/v2` and, per group/version, as the
 * component schemas of the `/openapi/v3` documents (what `kubectl explain` reads).
 */
import data from './data/kube-openapi.json' with { type: 'json' };
import zeroValueData from './data/kube-zero-value-fields.json' with { type: 'json' };

/** One OpenAPI v2 definition. */
export type Schema = Record<string, unknown>;

const DEFINITIONS = data.definitions as unknown as Readonly<Record<string, Schema>>;
/** Per definition, the fields Go's JSON encoding writes in the zero value (not `omitempty`, or a struct held by value); see scripts/gen-kube-zero-value-fields.mjs. */
const IN_ZERO_VALUE = zeroValueData as Readonly<Record<string, readonly string[]>>;

/** All v2 definitions. */
export function v2Definitions(): Readonly<Record<string, Schema>> {
  return DEFINITIONS;
}

const byGvkOf = new WeakMap<object, Map<string, string>>();

/**
 * The definition name of a group/version/kind, if the emulated version has one (`definitions`:
 * another version's set, default the data's 1.20 definitions).
 */
export function definitionFor(group: string, version: string, kind: string, definitions: Readonly<Record<string, Schema>> = DEFINITIONS): string | undefined {
  let byGvk = byGvkOf.get(definitions);
  if (byGvk === undefined) {
    byGvk = new Map();
    for (const [name, def] of Object.entries(definitions)) {
      const gvks = (def['x-kubernetes-group-version-kind'] ?? []) as readonly { group: string; version: string; kind: string }[];
      for (const g of gvks) if (!byGvk.has(`${g.group}/${g.version}/${g.kind}`)) byGvk.set(`${g.group}/${g.version}/${g.kind}`, name);
    }
    byGvkOf.set(definitions, byGvk);
  }
  return byGvk.get(`${group}/${version}/${kind}`);
}

function refsOf(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) refsOf(x, out);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Schema)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith('#/definitions/')) out.add(x.slice('#/definitions/'.length));
      else refsOf(x, out);
    }
  }
}

function toV3(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toV3);
  if (v === null || typeof v !== 'object') return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v as Schema)) {
    out[k] = k === '$ref' && typeof x === 'string' ? x.replace('#/definitions/', '#/components/schemas/') : toV3(x);
  }
  return out;
}

const v3Cache = new Map<string, Record<string, unknown>>();
const definitionSetIds = new WeakMap<object, number>();
let definitionSets = 0;

/** The v3 component schemas reachable from the given definitions (refs rewritten to `#/components/schemas/`). */
export function v3Schemas(roots: readonly string[], definitions: Readonly<Record<string, Schema>> = DEFINITIONS): Record<string, unknown> {
  let setId = definitionSetIds.get(definitions);
  if (setId === undefined) {
    setId = ++definitionSets;
    definitionSetIds.set(definitions, setId);
  }
  const key = `${setId}:${[...roots].sort().join(',')}`;
  const hit = v3Cache.get(key);
  if (hit !== undefined) return hit;
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop() ?? '';
    if (seen.has(name) || definitions[name] === undefined) continue;
    seen.add(name);
    const refs = new Set<string>();
    refsOf(definitions[name], refs);
    todo.push(...refs);
  }
  const out: Record<string, unknown> = {};
  for (const name of [...seen].sort()) out[name] = toV3(definitions[name]);
  if (v3Cache.size > 100) v3Cache.clear();
  v3Cache.set(key, out);
  return out;
}

/** Sets an own property, `__proto__` included (JSON may carry one as a plain key). */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** A deep copy of JSON data (objects that are not plain, if any, through `structuredClone`). */
export function copyJson(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, k, copyJson((v as Record<string, unknown>)[k]));
  return out;
}

/**
 * How {@link copyKnownFields} copies a value of one schema, compiled once per schema: a list's
 * items by `items` (undefined: the list is copied whole); an object keeping only its known
 * `properties` (those in `dropWhenEmpty`, `omitempty` lists and maps, left out when empty), or
 * as a map with every value copied by `values`, or (neither) copied whole.
 */
interface CopyNode {
  items: CopyNode | undefined;
  properties: Map<string, CopyNode> | undefined;
  dropWhenEmpty: ReadonlySet<string> | undefined;
  /** Lists and maps without `omitempty`: stored as null when empty (see {@link copyKnownFields}'s `asStored`). */
  nullWhenEmpty: ReadonlySet<string> | undefined;
  values: CopyNode | undefined;
}

/** No schema: everything copied whole. */
const WHOLE: CopyNode = { items: undefined, properties: undefined, dropWhenEmpty: undefined, nullWhenEmpty: undefined, values: undefined };
const COMPILED = new Map<Schema, CopyNode>();

/** The schema `s` stands for (`$ref`s followed), with the name of the definition it is, if any. */
function resolveNamed(s: Schema): { readonly name: string | undefined; readonly schema: Schema | undefined } {
  let cur: Schema | undefined = s;
  let name: string | undefined;
  for (let i = 0; i < 8 && cur !== undefined && typeof cur['$ref'] === 'string'; i++) {
    name = (cur['$ref'] as string).slice('#/definitions/'.length);
    cur = DEFINITIONS[name];
  }
  return { name, schema: cur };
}

/**
 * The properties of a definition that are lists or maps Go leaves out when empty (`omitempty`):
 * kube-apiserver's decoder drops `[]` and `{}` there (`tolerations: []`, `data: {}`), so nobody
 * owns them and they are not stored.
 */
function emptyDropped(name: string | undefined, props: Readonly<Record<string, Schema>>, omitempty: boolean): ReadonlySet<string> | undefined {
  if (name === undefined) return undefined;
  const kept = new Set(IN_ZERO_VALUE[name] ?? []);
  const out = new Set<string>();
  for (const k of Object.keys(props)) {
    const p = props[k] as Schema;
    if (kept.has(k) === omitempty || typeof p['$ref'] === 'string') continue;
    const additional = p['additionalProperties'];
    if (p['items'] !== undefined || (additional !== null && typeof additional === 'object')) out.add(k);
  }
  return out.size > 0 ? out : undefined;
}

/** The copy node of a schema (`$ref`s followed); a schema that contains itself ends in the node being compiled. */
function compile(schema: Schema | undefined): CopyNode {
  if (schema === undefined) return WHOLE;
  const hit = COMPILED.get(schema);
  if (hit !== undefined) return hit;
  const { name, schema: s } = resolveNamed(schema);
  const known = s === undefined ? WHOLE : COMPILED.get(s);
  if (known !== undefined) {
    COMPILED.set(schema, known);
    return known;
  }
  const node: CopyNode = { items: undefined, properties: undefined, dropWhenEmpty: undefined, nullWhenEmpty: undefined, values: undefined };
  COMPILED.set(schema, node);
  COMPILED.set(s as Schema, node);
  const def = s as Schema;
  const items = def['items'] as Schema | undefined;
  const props = def['properties'] as Record<string, Schema> | undefined;
  const additional = def['additionalProperties'];
  if (items !== undefined) node.items = compile(items);
  if (props !== undefined) {
    const fields = new Map<string, CopyNode>();
    for (const k of Object.keys(props)) fields.set(k, compile(props[k]));
    node.properties = fields;
    const defName = name ?? definitionNameOf(s as Schema);
    node.dropWhenEmpty = emptyDropped(defName, props, true);
    node.nullWhenEmpty = emptyDropped(defName, props, false);
  } else if (additional !== null && typeof additional === 'object') {
    node.values = compile(additional as Schema);
  }
  return node;
}

const NAMES = new Map<Schema, string>();

/** The name of a definition by its schema object (for the root, compiled without a `$ref`). */
function definitionNameOf(s: Schema): string | undefined {
  if (NAMES.size === 0) for (const [n, d] of Object.entries(DEFINITIONS)) NAMES.set(d, n);
  return NAMES.get(s);
}

/**
 * A deep copy of `value` without the fields the emulated version's schema of `definition` does
 * not have, as kube-apiserver's decoder drops unknown JSON fields of built-in kinds, and without
 * the empty lists and maps of its `omitempty` fields, as Go's JSON encoding leaves them out.
 * `asStored`: the empty lists and maps of the fields without `omitempty` become null, as
 * kube-apiserver stores them (protobuf in etcd has no empty list: a Role created with `rules: []`
 * is answered with `rules: null`). Objects whose
 * schema lists no properties (RawExtension, FieldsV1, JSON, …) are copied whole; maps follow
 * `additionalProperties`. The schemas are compiled into copy nodes once.
 */
export function copyKnownFields(value: unknown, definition: string, shareFieldsV1 = false, asStored = false): unknown {
  return copyKnown(value, compile(DEFINITIONS[definition]), shareFieldsV1 ? FIELDS_V1 : undefined, asStored);
}

/**
 * The copy node of `metadata.managedFields[].fieldsV1`. Admission before storing shares these
 * sets instead of copying them (`shareFieldsV1`): nothing changes a set in place (fields-v1.ts
 * works on private copies), and a stored set an update leaves alone stays one object across
 * versions.
 */
const FIELDS_V1: CopyNode | undefined = ((node) => (node === WHOLE ? undefined : node))(compile(DEFINITIONS['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1']));

function isEmptyListOrMap(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (v === null || typeof v !== 'object') return false;
  for (const k in v) if (Object.hasOwn(v, k)) return false;
  return true;
}

function copyKnown(v: unknown, node: CopyNode, shared: CopyNode | undefined, asStored: boolean): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (node === shared) return v;
  if (Array.isArray(v)) {
    const items = node.items;
    if (items === undefined) return copyJson(v);
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyKnown(v[i], items, shared, asStored);
    return out;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return structuredClone(v);
  const o = v as Record<string, unknown>;
  const { properties, values, dropWhenEmpty, nullWhenEmpty } = node;
  if (properties === undefined && values === undefined) return copyJson(o);
  const out: Record<string, unknown> = {};
  if (properties !== undefined) {
    for (const k of Object.keys(o)) {
      const p = properties.get(k);
      if (p === undefined) continue;
      const v = o[k];
      if (dropWhenEmpty?.has(k) === true && isEmptyListOrMap(v)) continue;
      if (asStored && nullWhenEmpty?.has(k) === true && isEmptyListOrMap(v)) setOwn(out, k, null);
      else setOwn(out, k, copyKnown(v, p, shared, asStored));
    }
  } else {
    for (const k of Object.keys(o)) setOwn(out, k, copyKnown(o[k], values as CopyNode, shared, asStored));
  }
  return out;
}
