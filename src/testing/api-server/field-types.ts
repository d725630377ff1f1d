/**
 * The JSON types of an object's typed fields, checked when a request body is decoded. kube-apiserver
 * 1.20 decodes built-in kinds into Go structs (json-iterator): a value of the wrong JSON type fails
 * the decode with 400 BadRequest, naming the Go field path (`v1.ConfigMap.ObjectMeta:
 * v1.ObjectMeta.Name: ReadString: expects " or n, but found 5`). Custom resources are decoded as
 * unstructured JSON and their metadata converted with encoding/json (`json: cannot unmarshal number
 * into Go struct field ObjectMeta.name of type string`). `null` is Go's zero value: the field is dropped.
 */
import { badRequest, type StatusError } from './status-error.js';

/** The JSON shape a typed field must have. */
export type FieldType = 'string' | 'integer' | 'boolean' | 'stringMap' | 'stringList' | 'objectList';

/** A typed field: its JSON key, its Go name (for the message) and its type. */
export interface TypedField {
  readonly key: string;
  readonly goName: string;
  readonly type: FieldType;
  /** For `objectList`: the typed fields of each element, and the element's Go type name. */
  readonly item?: { readonly goType: string; readonly fields: readonly TypedField[] };
}

const OWNER_REFERENCE: readonly TypedField[] = [
  { key: 'apiVersion', goName: 'APIVersion', type: 'string' },
  { key: 'kind', goName: 'Kind', type: 'string' },
  { key: 'name', goName: 'Name', type: 'string' },
  { key: 'uid', goName: 'UID', type: 'string' },
  { key: 'controller', goName: 'Controller', type: 'boolean' },
  { key: 'blockOwnerDeletion', goName: 'BlockOwnerDeletion', type: 'boolean' },
];

/** The typed fields of `ObjectMeta` a client may send. */
export const OBJECT_META_FIELDS: readonly TypedField[] = [
  { key: 'name', goName: 'Name', type: 'string' },
  { key: 'generateName', goName: 'GenerateName', type: 'string' },
  { key: 'namespace', goName: 'Namespace', type: 'string' },
  { key: 'selfLink', goName: 'SelfLink', type: 'string' },
  { key: 'uid', goName: 'UID', type: 'string' },
  { key: 'resourceVersion', goName: 'ResourceVersion', type: 'string' },
  { key: 'generation', goName: 'Generation', type: 'integer' },
  { key: 'deletionGracePeriodSeconds', goName: 'DeletionGracePeriodSeconds', type: 'integer' },
  { key: 'labels', goName: 'Labels', type: 'stringMap' },
  { key: 'annotations', goName: 'Annotations', type: 'stringMap' },
  { key: 'finalizers', goName: 'Finalizers', type: 'stringList' },
  { key: 'clusterName', goName: 'ClusterName', type: 'string' },
  { key: 'ownerReferences', goName: 'OwnerReferences', type: 'objectList', item: { goType: 'v1.OwnerReference', fields: OWNER_REFERENCE } },
];

type Obj = Record<string, unknown>;

/** A wrong JSON type found at a field: the Go path and what was expected and found. */
interface Mismatch {
  /** json-iterator's path: `v1.ObjectMeta.Labels`. */
  readonly goPath: string;
  /** encoding/json's field path below the struct: `name`, `labels`. */
  readonly jsonPath: string;
  readonly expected: FieldType;
  readonly found: unknown;
}

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function fits(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'stringMap':
    case 'stringList':
    case 'objectList':
      return false; // checked element by element
  }
}

/** The first wrong JSON type among `fields` of `o`; nulls are removed from `o` (Go's zero values). */
function firstMismatch(o: Obj, fields: readonly TypedField[], goType: string, jsonPrefix: string): Mismatch | undefined {
  for (const f of fields) {
    const v = o[f.key];
    if (v === undefined) continue;
    if (v === null) {
      delete o[f.key];
      continue;
    }
    const goPath = `${goType}.${f.goName}`;
    const jsonPath = `${jsonPrefix}${f.key}`;
    const wrong = (found: unknown): Mismatch => ({ goPath, jsonPath, expected: f.type, found });
    if (f.type === 'stringMap') {
      if (!isObject(v)) return wrong(v);
      const bad = Object.values(v).find((x) => typeof x !== 'string');
      if (bad !== undefined) return { goPath, jsonPath, expected: 'string', found: bad };
    } else if (f.type === 'stringList') {
      if (!Array.isArray(v)) return wrong(v);
      const bad = v.find((x) => typeof x !== 'string');
      if (bad !== undefined) return { goPath: `${goPath}: []string`, jsonPath, expected: 'string', found: bad };
    } else if (f.type === 'objectList') {
      if (!Array.isArray(v)) return wrong(v);
      for (const x of v) {
        if (!isObject(x)) return { goPath: `${goPath}: []${f.item?.goType ?? 'object'}`, jsonPath, expected: 'objectList', found: x };
        const inner = firstMismatch(x, f.item?.fields ?? [], f.item?.goType ?? 'object', `${jsonPath}.`);
        if (inner !== undefined) return { ...inner, goPath: `${goPath}: []${f.item?.goType ?? 'object'}: ${inner.goPath}` };
      }
    } else if (!fits(f.type, v)) return wrong(v);
  }
  return undefined;
}

/** The first character json-iterator reports for a JSON value (`5`, `t`, `[`, `{`, `"`). */
function firstChar(v: unknown): string {
  if (typeof v === 'string') return '"';
  if (Array.isArray(v)) return '[';
  if (isObject(v)) return '{';
  return String(v).charAt(0);
}

/** json-iterator's complaint about a value of the wrong JSON type. */
function iteratorMessage(m: Mismatch): string {
  const c = firstChar(m.found);
  switch (m.expected) {
    case 'string':
      return `${m.goPath}: ReadString: expects " or n, but found ${c}`;
    case 'integer':
      return `${m.goPath}: readUint64: unexpected character: ${c}`;
    case 'boolean':
      return `${m.goPath}: ReadBool: expect t or f, but found ${c}`;
    case 'stringMap':
      return `${m.goPath}: ReadMapCB: expect { or n, but found ${c}`;
    case 'stringList':
    case 'objectList':
      return `${m.goPath}: decode slice: expect [ or n, but found ${c}`;
  }
}

/** encoding/json's name of a JSON value's type (`number`, `bool`, `array`, `object`, `string`). */
function jsonTypeName(v: unknown): string {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  if (isObject(v)) return 'object';
  return 'string';
}

const GO_TYPE: Readonly<Record<FieldType, string>> = {
  string: 'string', integer: 'int64', boolean: 'bool', stringMap: 'map[string]string', stringList: '[]string', objectList: '[]v1.OwnerReference',
};

/**
 * Checks the JSON types of `metadata` and of the kind's own typed `fields` (e.g. a ConfigMap's
 * `data`), dropping null values. Answers the 400 kube-apiserver answers for the first wrong one,
 * or undefined when every typed field has its type. `kind` is the Go kind (`ConfigMap`), `version`
 * the request's version; `custom` selects the custom-resource (unstructured) wording.
 */
export function fieldTypeError(
  o: Obj,
  r: { readonly kind: string; readonly custom: boolean },
  version: string,
  fields: readonly TypedField[],
): StatusError | undefined {
  const meta = o['metadata'];
  const inMeta = isObject(meta) ? firstMismatch(meta, OBJECT_META_FIELDS, 'v1.ObjectMeta', '') : undefined;
  if (inMeta !== undefined && r.custom) {
    return badRequest(`json: cannot unmarshal ${jsonTypeName(inMeta.found)} into Go struct field ObjectMeta.${inMeta.jsonPath} of type ${GO_TYPE[inMeta.expected]}`);
  }
  const prefix = `${r.kind} in version "${version}" cannot be handled as a ${r.kind}: `;
  if (inMeta !== undefined) return badRequest(`${prefix}${version}.${r.kind}.ObjectMeta: ${iteratorMessage(inMeta)}`);
  const own = r.custom ? undefined : firstMismatch(o, fields, `${version}.${r.kind}`, '');
  return own === undefined ? undefined : badRequest(`${prefix}${iteratorMessage(own)}`);
}
