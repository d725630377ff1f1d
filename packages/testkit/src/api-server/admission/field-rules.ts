/**
 * The building blocks of Kubernetes 1.20 validation shared by the per-kind rules: the name and
 * label formats with kube-apiserver's messages, the cause list, and JSON helpers.
 */
import type { FieldCause } from '../status-error.js';

type Obj = Record<string, unknown>;

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
export const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
export const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
export const QUALIFIED_NAME_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
export const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
export const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** Go's `%#v` of a map[string]string: `map[string]string{"a":"b", "c":"d"}`. */
export function goMap(m: unknown): string {
  const entries = Object.entries(o(m) ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`;
}

/** Go's `%v` of a value in an Invalid value message: strings quoted, numbers as is. */
export function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** kube-apiserver's `field.ErrorList`: causes with reason, message and field path. */
export class Causes {
  readonly list: FieldCause[] = [];
  required(field: string, detail = ''): void {
    this.list.push({ reason: 'FieldValueRequired', message: `Required value${detail === '' ? '' : `: ${detail}`}`, field });
  }
  invalidValue(field: string, value: unknown, detail: string): void {
    this.list.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${show(value)}: ${detail}`, field });
  }
  unsupported(field: string, value: unknown, supported: readonly string[]): void {
    this.list.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${show(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`, field });
  }
  duplicate(field: string, value: unknown): void {
    this.list.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${show(value)}`, field });
  }
  forbidden(field: string, detail: string): void {
    this.list.push({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });
  }
  immutable(field: string, value: unknown): void {
    this.invalidValue(field, value, 'field is immutable');
  }
}

export function o(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
export function labelKey(c: Causes, field: string, key: string): void {
  const slash = key.lastIndexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (name === '' || name.length > 63 || !QUALIFIED_NAME.test(name)) c.invalidValue(field, key, QUALIFIED_NAME_MSG);
}

export function labels(c: Causes, field: string, l: unknown): void {
  for (const [k, v] of Object.entries(o(l) ?? {})) {
    labelKey(c, field, k);
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) c.invalidValue(field, v, LABEL_VALUE_MSG);
  }
}

export function nonNegative(c: Causes, field: string, v: unknown): void {
  if (typeof v === 'number' && v < 0) c.invalidValue(field, v, 'must be greater than or equal to 0');
}

export function port(c: Causes, field: string, v: unknown): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) c.invalidValue(field, v ?? 0, 'must be between 1 and 65535, inclusive');
}

export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

