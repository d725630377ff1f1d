/**
 * JSON values as CEL sees them, typed by the structural schema they sit under (as
 * kube-apiserver's `UnstructuredToVal`): `integer` → int, `number` → double (also for `1`),
 * `x-kubernetes-int-or-string` → int or string, strings with `format: date-time`/`date` →
 * timestamp and `duration` → duration, objects with `properties` → only those properties (names
 * escaped, see {@link escapeCelName}), `additionalProperties` → a map of the typed values,
 * `x-kubernetes-preserve-unknown-fields` without properties → the value as JSON gives it; null
 * fields are absent. At the root (and embedded resources) `apiVersion`, `kind`,
 * `metadata.name` and `metadata.generateName` are visible.
 */
import { celEnv, celList, celMap, CelScalar, isCelError, parse, plan, type CelValue } from '@bufbuild/cel';
import type { SchemaNode } from '../crd-schema.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** CEL's reserved words: a property with such a name is reached as `__{name}__`. */
const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop',
  'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/**
 * A property name as CEL expressions reach it (Kubernetes' escaping): `__` → `__underscores__`,
 * `.` → `__dot__`, `-` → `__dash__`, `/` → `__slash__`, reserved words → `__{word}__`;
 * undefined when the name cannot be reached at all.
 */
export function escapeCelName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replaceAll('__', '__underscores__').replaceAll('.', '__dot__').replaceAll('-', '__dash__').replaceAll('/', '__slash__');
}

const timestampOf = plan(celEnv({ variables: { s: CelScalar.STRING } }), parse('timestamp(s)'));
const durationOf = plan(celEnv({ variables: { s: CelScalar.STRING } }), parse('duration(s)'));

function formatted(v: string, format: string | undefined): CelValue {
  if (format === 'date-time' || format === 'date') {
    const r = timestampOf({ s: format === 'date' ? `${v}T00:00:00Z` : v });
    return isCelError(r) ? v : r;
  }
  if (format === 'duration') {
    const r = durationOf({ s: v });
    return isCelError(r) ? v : r;
  }
  return v;
}

/** A JSON value without a schema (preserved unknown fields, VAP objects): integral numbers are ints. */
export function untypedCelValue(v: unknown): CelValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return celList(v.map(untypedCelValue));
  const out = new Map<string, CelValue>();
  for (const [k, x] of Object.entries(v as Obj)) if (x !== null && x !== undefined) out.set(k, untypedCelValue(x));
  return celMap(out);
}

function objectMetaView(meta: unknown): CelValue {
  const out = new Map<string, CelValue>();
  if (!isObj(meta)) return celMap(out);
  for (const k of ['name', 'generateName']) if (typeof meta[k] === 'string') out.set(k, meta[k]);
  return celMap(out);
}

/**
 * `v` as CEL sees it under schema `s`; `resource` adds the type and object meta view
 * (the root of a custom resource, or an embedded resource).
 */
export function celValue(v: unknown, s: SchemaNode | undefined, resource = false): CelValue {
  if (v === null || v === undefined) return null;
  if (s === undefined) return untypedCelValue(v);
  if (s['x-kubernetes-int-or-string'] === true) return typeof v === 'number' ? (Number.isInteger(v) ? BigInt(v) : v) : untypedCelValue(v);
  if (typeof v === 'number') return s.type === 'integer' && Number.isInteger(v) ? BigInt(v) : s.type === 'number' ? v : untypedCelValue(v);
  if (typeof v === 'string') return formatted(v, s.format);
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return celList(v.map((x) => celValue(x, s.items)));
  const o = v as Obj;
  const out = new Map<string, CelValue>();
  const embedded = resource || s['x-kubernetes-embedded-resource'] === true;
  if (embedded) {
    for (const k of ['apiVersion', 'kind']) if (typeof o[k] === 'string') out.set(k, o[k]);
    if (o['metadata'] !== undefined) out.set('metadata', objectMetaView(o['metadata']));
  }
  if (s.properties !== undefined) {
    for (const [k, p] of Object.entries(s.properties)) {
      if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const x = o[k];
      const name = escapeCelName(k);
      if (x === null || x === undefined || name === undefined) continue;
      out.set(name, celValue(x, p));
    }
    return celMap(out);
  }
  if (typeof s.additionalProperties === 'object') {
    for (const [k, x] of Object.entries(o)) if (x !== null && x !== undefined) out.set(k, celValue(x, s.additionalProperties));
    return celMap(out);
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return untypedCelValue(v);
  return celMap(out);
}
