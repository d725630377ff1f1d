/**
 * Structural schemas of CustomResourceDefinitions (apiextensions.k8s.io/v1), applied to custom
 * resources on create and update as kube-apiserver 1.20 does: defaults (`default`), pruning of
 * fields the schema does not specify (unless `x-kubernetes-preserve-unknown-fields`), then
 * validation (types, required, enum, bounds, lengths, patterns, item counts) with kube-apiserver's
 * 422 causes. `additionalPrinterColumns` are read by the table view.
 */
import type { FieldCause } from './status-error.js';

/** A JSON schema node (the subset of JSONSchemaProps used here). */
export interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly items?: SchemaNode;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly nullable?: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly format?: string;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
}

/** One additional printer column of a CRD version. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Fills in `default`s of absent properties (recursively, in place). */
export function applySchemaDefaults(v: unknown, s: SchemaNode | undefined): void {
  if (s === undefined) return;
  if (isObj(v)) {
    for (const [k, p] of Object.entries(s.properties ?? {})) {
      if (v[k] === undefined && p.default !== undefined) v[k] = structuredClone(p.default);
      applySchemaDefaults(v[k], p);
    }
    if (typeof s.additionalProperties === 'object') for (const x of Object.values(v)) applySchemaDefaults(x, s.additionalProperties);
  } else if (Array.isArray(v) && s.items !== undefined) {
    for (const x of v) applySchemaDefaults(x, s.items);
  }
}

/** Removes fields the schema does not specify (recursively, in place); `root` keeps apiVersion, kind and metadata. */
export function prune(v: unknown, s: SchemaNode | undefined, root = false): void {
  if (s === undefined) return;
  if (isObj(v)) {
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = root || s['x-kubernetes-embedded-resource'] === true;
    for (const k of Object.keys(v)) {
      if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const p = s.properties?.[k];
      if (p !== undefined) prune(v[k], p);
      else if (typeof s.additionalProperties === 'object') prune(v[k], s.additionalProperties);
      else if (!preserve && s.additionalProperties !== true) delete v[k];
    }
  } else if (Array.isArray(v) && s.items !== undefined) {
    for (const x of v) prune(x, s.items);
  }
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeOk(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

/** Validates `v` against the schema; causes use kube-apiserver's field paths and messages. */
export function validateSchema(v: unknown, s: SchemaNode | undefined, path: string, out: FieldCause[] = []): FieldCause[] {
  if (s === undefined) return out;
  const where = path === '' ? '<root>' : path;
  const invalidValue = (detail: string) => out.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${show(v)}: ${detail}`, field: where });
  if (v === null) {
    if (s.nullable !== true && s.type !== undefined) invalidValue(`${where} in body must be of type ${s.type}: "null"`);
    return out;
  }
  // A type error reports the JSON type as the invalid value (kube-apiserver 1.20).
  const typeError = (expected: string) => out.push({ reason: 'FieldValueInvalid', message: `Invalid value: "${typeName(v)}": ${where} in body must be of type ${expected}: "${typeName(v)}"`, field: where });
  if (s['x-kubernetes-int-or-string'] === true) {
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) typeError('integer,string');
  } else if (s.type !== undefined && !typeOk(s.type, v)) {
    typeError(s.type);
    return out;
  }
  if (s.enum !== undefined && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    out.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${show(v)}: supported values: ${s.enum.map((e) => show(e)).join(', ')}`, field: where });
  }
  if (typeof v === 'number') {
    if (s.minimum !== undefined && (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum)) invalidValue(`${where} in body should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${s.minimum}`);
    if (s.maximum !== undefined && (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum)) invalidValue(`${where} in body should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${s.maximum}`);
  }
  // Strings: the first failing check only (maxLength, minLength, pattern), as go-openapi's validator.
  if (typeof v === 'string') {
    if (s.maxLength !== undefined && [...v].length > s.maxLength) invalidValue(`${where} in body should be at most ${s.maxLength} chars long`);
    else if (s.minLength !== undefined && [...v].length < s.minLength) invalidValue(`${where} in body should be at least ${s.minLength} chars long`);
    else if (s.pattern !== undefined) {
      let re: RegExp | undefined;
      try {
        re = new RegExp(s.pattern, 'u');
      } catch {
        re = undefined;
      }
      if (re !== undefined && !re.test(v)) invalidValue(`${where} in body should match '${s.pattern}'`);
    }
  }
  if (Array.isArray(v)) {
    const count = (detail: string) => out.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${v.length}: ${where} in body ${detail}`, field: where });
    if (s.maxItems !== undefined && v.length > s.maxItems) count(`should have at most ${s.maxItems} items`);
    if (s.minItems !== undefined && v.length < s.minItems) count(`should have at least ${s.minItems} items`);
    if (s.uniqueItems === true && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) invalidValue(`${where} in body shouldn't contain duplicates`);
    v.forEach((x, i) => validateSchema(x, s.items, `${path}[${i}]`, out));
  }
  if (isObj(v)) {
    const n = Object.keys(v).length;
    if (s.maxProperties !== undefined && n > s.maxProperties) out.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${n}: ${where} in body should have at most ${s.maxProperties} properties`, field: where });
    if (s.minProperties !== undefined && n < s.minProperties) out.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${n}: ${where} in body should have at least ${s.minProperties} properties`, field: where });
    for (const req of s.required ?? []) if (v[req] === undefined) out.push({ reason: 'FieldValueRequired', message: 'Required value', field: path === '' ? req : `${path}.${req}` });
    for (const [k, x] of Object.entries(v)) {
      if (path === '' && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const child = path === '' ? k : `${path}.${k}`;
      const p = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      validateSchema(x, p, child, out);
    }
  }
  return out;
}

/** Defaults, prunes and validates a custom resource; returns the causes (empty when valid). */
export function admitCustomResource(obj: Obj, schema: SchemaNode | undefined): FieldCause[] {
  if (schema === undefined) return [];
  applySchemaDefaults(obj, schema);
  prune(obj, schema, true);
  return validateSchema(obj, schema, '');
}

/** Evaluates a printer column's simple JSONPath (`.spec.replicas`, `.status.conditions[0].type`). */
export function jsonPathValue(o: unknown, path: string): unknown {
  const parts = path.replace(/^\{?\.?/, '').replace(/\}$/, '').split('.').filter((p) => p !== '');
  let cur: unknown = o;
  for (const part of parts) {
    const m = /^([^[\]]+)((?:\[\d+\])*)$/.exec(part);
    if (m === null || cur === undefined || cur === null) return undefined;
    cur = isObj(cur) ? cur[m[1] ?? ''] : undefined;
    for (const idx of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) cur = Array.isArray(cur) ? cur[Number(idx[1])] : undefined;
  }
  return cur;
}
