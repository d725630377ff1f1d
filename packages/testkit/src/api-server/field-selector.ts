import type { UnstructuredObject } from 'rxkube';
import { badRequest } from './status-error.js';

/** Reads one selectable field of an object as a string ('' when absent). */
export type FieldGetter = (object: UnstructuredObject) => string;

/** A parsed field selector; `matches` tests an object. */
export interface FieldSelector {
  readonly terms: readonly { readonly field: string; readonly op: '=' | '!='; readonly value: string }[];
  matches(object: UnstructuredObject): boolean;
}

function path(object: UnstructuredObject, dotted: string): string {
  let cur: unknown = object;
  for (const part of dotted.split('.')) {
    if (typeof cur !== 'object' || cur === null) return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'string' ? cur : String(cur as number | boolean);
}

/** Getter for a dotted field path. */
export function fieldPath(dotted: string): FieldGetter {
  return (o) => path(o, dotted);
}

/** Fields every resource supports. */
export const COMMON_FIELDS: Readonly<Record<string, FieldGetter>> = {
  'metadata.name': fieldPath('metadata.name'),
  'metadata.namespace': fieldPath('metadata.namespace'),
};

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** Splits on commas that are not escaped (`\,` is an escaped comma; `\\,` is an escaped backslash, then a separator). */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ',') {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/**
 * Parses a field selector (`metadata.name=x,status.phase!=Running`, `==` allowed) against the
 * fields a resource supports. Unknown fields and malformed terms throw a 400 BadRequest Status.
 */
export function parseFieldSelector(
  selector: string | null | undefined,
  fields: Readonly<Record<string, FieldGetter>>,
): FieldSelector {
  const text = (selector ?? '').trim();
  const terms: { field: string; op: '=' | '!='; value: string }[] = [];
  if (text !== '') {
    for (const raw of splitTerms(text)) {
      const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw);
      if (m === null) throw badRequest(`invalid selector: '${text}'; can't understand '${raw}'`);
      const [, field = '', op = '', value = ''] = m;
      if (!Object.hasOwn(fields, field)) throw badRequest(`field label not supported: ${field}`);
      terms.push({ field, op: op === '!=' ? '!=' : '=', value: unescape(value) });
    }
  }
  return {
    terms,
    matches(object) {
      for (const t of terms) {
        const getter = fields[t.field];
        const actual = getter === undefined ? '' : getter(object);
        if ((actual === t.value) !== (t.op === '=')) return false;
      }
      return true;
    },
  };
}
