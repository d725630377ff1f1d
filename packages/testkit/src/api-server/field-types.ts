/**
 * The JSON types of an object's typed fields, checked when a request body is decoded. kube-apiserver
 * 1.20 decodes built-in kinds into Go structs with json-iterator: a value of the wrong JSON type
 * fails the decode with 400 BadRequest and json-iterator's message, naming the Go path of the field:
 * `ConfigMap in version "v1" cannot be handled as a ConfigMap: v1.ConfigMap.ObjectMeta:
 * v1.ObjectMeta.Name: ReadString: expects " or n, but found 5`. Custom resources get the same for
 * their metadata, without the kind's own struct (`Widget in version "v1" cannot be handled as a
 * Widget: v1.ObjectMeta.Name: …`). Two parts of kube-apiserver's message are left out: the bytes
 * around the error it appends (`, error found in #10 byte of ...|…|...`), and the names of fields
 * json-iterator decodes after the error, which it puts in front of the path in ways that depend on
 * how its tokenizer recovers (`v1.ObjectMeta.Namespace: Name: Labels: ReadString…` for a bad label
 * followed by `name` and `namespace`); so the message is kube-apiserver's exactly when the bad field
 * comes last in its object and in every object around it. `null` is Go's zero value: a null field
 * is dropped, a null map value or list element is "". Checked against kube-apiserver 1.20.2.
 */
import { microTimeError } from './go-micro-time.js';
import { badRequest, type StatusError } from './status-error.js';

/**
 * The JSON shape a typed field must have (`bytes`: a base64 string, as Go's `[]byte`; `microTime`:
 * a string in `metav1.MicroTime`'s layout, six fraction digits).
 */
export type FieldType = 'microTime' | 'string' | 'integer' | 'boolean' | 'stringMap' | 'bytesMap' | 'stringList' | 'objectList' | 'object' | 'any';

/** A field of a Go struct: its JSON key, its Go name (as json-iterator prints it) and its type. */
export interface TypedField {
  readonly key: string;
  readonly goName: string;
  readonly type: FieldType;
  /** For `objectList` and `object`: the Go struct of the elements or of the value. */
  readonly struct?: GoStruct;
}

/** A Go struct as json-iterator decodes it: its type name (`v1.ObjectMeta`) and its fields. */
export interface GoStruct {
  readonly goType: string;
  readonly fields: readonly TypedField[];
}

const OWNER_REFERENCE: GoStruct = {
  goType: 'v1.OwnerReference',
  fields: [
    { key: 'apiVersion', goName: 'APIVersion', type: 'string' },
    { key: 'kind', goName: 'Kind', type: 'string' },
    { key: 'name', goName: 'Name', type: 'string' },
    { key: 'uid', goName: 'UID', type: 'string' },
    { key: 'controller', goName: 'Controller', type: 'boolean' },
    { key: 'blockOwnerDeletion', goName: 'BlockOwnerDeletion', type: 'boolean' },
  ],
};

/** `ObjectMeta`, every field (the ones not checked here still take part in json-iterator's error path). */
export const OBJECT_META: GoStruct = {
  goType: 'v1.ObjectMeta',
  fields: [
    { key: 'name', goName: 'Name', type: 'string' },
    { key: 'generateName', goName: 'GenerateName', type: 'string' },
    { key: 'namespace', goName: 'Namespace', type: 'string' },
    { key: 'selfLink', goName: 'SelfLink', type: 'string' },
    { key: 'uid', goName: 'UID', type: 'string' },
    { key: 'resourceVersion', goName: 'ResourceVersion', type: 'string' },
    { key: 'generation', goName: 'Generation', type: 'integer' },
    { key: 'creationTimestamp', goName: 'CreationTimestamp', type: 'any' },
    { key: 'deletionTimestamp', goName: 'DeletionTimestamp', type: 'any' },
    { key: 'deletionGracePeriodSeconds', goName: 'DeletionGracePeriodSeconds', type: 'integer' },
    { key: 'labels', goName: 'Labels', type: 'stringMap' },
    { key: 'annotations', goName: 'Annotations', type: 'stringMap' },
    { key: 'ownerReferences', goName: 'OwnerReferences', type: 'objectList', struct: OWNER_REFERENCE },
    { key: 'finalizers', goName: 'Finalizers', type: 'stringList' },
    { key: 'clusterName', goName: 'ClusterName', type: 'string' },
    { key: 'managedFields', goName: 'ManagedFields', type: 'any' },
  ],
};

/** Stands for the request's API version in a nested struct's `goType` (`{version}.LeaseSpec`), for kinds served in several versions. */
export const VERSION_PLACEHOLDER = '{version}';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The character json-iterator reports a JSON value by (`5`, `t`, `[`, `{`, `"`). */
function firstChar(v: unknown): string {
  if (typeof v === 'string') return '"';
  if (Array.isArray(v)) return '[';
  if (isObject(v)) return '{';
  return String(v).charAt(0);
}

const readString = (v: unknown) => `ReadString: expects " or n, but found ${firstChar(v)}`;

/** Where Go's base64 decoder (StdEncoding) stops on `s`, or undefined when `s` decodes. */
export function base64ErrorAt(s: string): number | undefined {
  const alphabet = /[A-Za-z0-9+/]/;
  let i = 0;
  const skipNewlines = () => {
    while (i < s.length && (s[i] === '\n' || s[i] === '\r')) i++;
  };
  while (i < s.length) {
    let j = 0;
    for (; j < 4; j++) {
      if (i === s.length) return j === 0 ? undefined : i - j;
      const c = s.charAt(i++);
      if (alphabet.test(c)) continue;
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (c !== '=' || j < 2) return i - 1;
      if (j === 2) {
        skipNewlines();
        if (i === s.length) return s.length;
        if (s[i] !== '=') return i - 1;
        i++;
      }
      skipNewlines();
      return i < s.length ? i : undefined;
    }
  }
  return undefined;
}

/** What json-iterator says about `v` as a value of `f`'s type (nulls inside maps and lists become ""), or undefined when it fits. */
function fieldError(v: unknown, f: TypedField, sortKeys: boolean): string | undefined {
  switch (f.type) {
    case 'any':
      return undefined;
    case 'string':
      return typeof v === 'string' ? undefined : readString(v);
    case 'microTime':
      return microTimeError(v);
    case 'integer':
      if (typeof v === 'number') return Number.isInteger(v) ? undefined : 'assertInteger: can not decode float as int';
      return 'readUint64: unexpected character: \ufffd';
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `ReadBool: expect t or f, but found ${firstChar(v)}`;
    case 'stringMap':
    case 'bytesMap': {
      if (!isObject(v)) return `ReadMapCB: expect { or n, but found ${firstChar(v)}`;
      for (const [k, x] of Object.entries(v)) {
        if (x === null) v[k] = '';
        else if (typeof x !== 'string') return f.type === 'bytesMap' ? 'base64Codec: invalid input' : readString(x);
        else if (f.type === 'bytesMap') {
          const at = base64ErrorAt(x);
          if (at !== undefined) return `decode base64: illegal base64 data at input byte ${at}`;
        }
      }
      return undefined;
    }
    case 'stringList': {
      if (!Array.isArray(v)) return `[]string: decode slice: expect [ or n, but found ${firstChar(v)}`;
      for (let i = 0; i < v.length; i++) {
        if (v[i] === null) v[i] = '';
        else if (typeof v[i] !== 'string') return `[]string: ${readString(v[i])}`;
      }
      return undefined;
    }
    case 'objectList': {
      const item = f.struct as GoStruct;
      if (!Array.isArray(v)) return `[]${item.goType}: decode slice: expect [ or n, but found ${firstChar(v)}`;
      for (const x of v) {
        const inner = structError(x, item, sortKeys);
        if (inner !== undefined) return `[]${item.goType}: ${inner}`;
      }
      return undefined;
    }
    case 'object':
      return structError(v, f.struct as GoStruct, sortKeys);
  }
}

const FIELDS_BY_KEY = new WeakMap<GoStruct, ReadonlyMap<string, TypedField>>();

/** The fields of a struct by JSON key (built once per struct). */
function fieldsByKey(s: GoStruct): ReadonlyMap<string, TypedField> {
  let byKey = FIELDS_BY_KEY.get(s);
  if (byKey === undefined) {
    byKey = new Map(s.fields.map((f) => [f.key, f]));
    FIELDS_BY_KEY.set(s, byKey);
  }
  return byKey;
}

/** json-iterator's message for the first ill-typed field of `o` as the Go struct `s`, or undefined; drops null fields and empty maps and lists. */
function structError(o: unknown, s: GoStruct, sortKeys: boolean): string | undefined {
  if (!isObject(o)) return `readObjectStart: expect { or n, but found ${firstChar(o)}`;
  const byKey = fieldsByKey(s);
  const keys = Object.keys(o);
  if (sortKeys) keys.sort();
  for (const key of keys) {
    const f = byKey.get(key);
    if (f === undefined) continue;
    let v = o[key];
    if (v === null) {
      delete o[key];
      continue;
    }
    // An empty map or list is dropped too: every typed one is `omitempty` in Go (labels,
    // annotations, finalizers, ownerReferences, a ConfigMap's or Secret's data), as kube-apiserver
    // stores and answers it (and so nobody owns it in managedFields).
    if ((f.type === 'stringMap' || f.type === 'bytesMap') && isObject(v) && Object.keys(v).length === 0) {
      delete o[key];
      continue;
    }
    if ((f.type === 'stringList' || f.type === 'objectList') && Array.isArray(v) && v.length === 0) {
      delete o[key];
      continue;
    }
    // Nulls inside are replaced: on a copy, never in the caller's object.
    if (Array.isArray(v)) v = o[key] = v.map((x: unknown) => (isObject(x) ? { ...x } : x));
    else if (isObject(v) && f.type !== 'any') v = o[key] = { ...v };
    const inner = fieldError(v, f, sortKeys);
    if (inner === undefined) continue;
    return `${s.goType}.${f.goName}: ${inner}`;
  }
  return undefined;
}

const KIND_STRUCTS = new WeakMap<readonly TypedField[], Map<string, GoStruct>>();

/** The Go struct of a built-in kind as far as it is checked: `metadata`, and the kind's own typed fields (built once per kind and version). */
function kindStruct(version: string, kind: string, typed: readonly TypedField[]): GoStruct {
  let byName = KIND_STRUCTS.get(typed);
  if (byName === undefined) {
    byName = new Map();
    KIND_STRUCTS.set(typed, byName);
  }
  const goType = `${version}.${kind}`;
  let s = byName.get(goType);
  if (s === undefined) {
    s = { goType, fields: [{ key: 'metadata', goName: 'ObjectMeta', type: 'object', struct: OBJECT_META }, ...typed] };
    byName.set(goType, s);
  }
  return s;
}

/**
 * Checks the JSON types of `metadata` and of the kind's own typed `fields` (e.g. a ConfigMap's
 * `data`) in the decoded body `o` (nulls dropped or made "" in copies `o` then holds), and answers the
 * 400 kube-apiserver answers for the first wrong one, or undefined when every typed field fits.
 */
export function fieldTypeError(
  o: Obj,
  r: { readonly group: string; readonly kind: string; readonly custom: boolean },
  version: string,
  fields: readonly TypedField[],
): StatusError | undefined {
  const prefix = `${r.kind} in version "${version}" cannot be handled as a ${r.kind}: `;
  if (r.custom) {
    if (!('metadata' in o) || o['metadata'] === undefined || o['metadata'] === null) return undefined;
    const inner = structError(o['metadata'], OBJECT_META, true);
    return inner === undefined ? undefined : badRequest(`${prefix}${inner}`);
  }
  const inner = structError(o, kindStruct(version, r.kind, fields), false);
  return inner === undefined ? undefined : badRequest(`${prefix}${inner.replaceAll(VERSION_PLACEHOLDER, version)}`);
}
