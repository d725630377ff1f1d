import { badRequest } from './status-error.js';

/** One parsed requirement of a label selector. */
export interface LabelRequirement {
  readonly key: string;
  readonly op: 'in' | 'notin' | 'exists' | '!exists' | '=' | '!=' | 'gt' | 'lt';
  readonly values: readonly string[];
}

/** A parsed label selector; `matches` tests a label map. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(key: string, selector: string): void {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const ok =
    name.length > 0 &&
    name.length <= 63 &&
    NAME.test(name) &&
    (prefix === undefined || (prefix.length > 0 && prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix)));
  if (!ok) throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
}

function checkValue(value: string, selector: string): void {
  if (value !== '' && (value.length > 63 || !NAME.test(value))) {
    throw badRequest(`unable to parse requirement: invalid label value: "${value}" in selector "${selector}"`);
  }
}

/** Splits on commas that are not inside parentheses. */
function splitTop(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw badRequest(`unable to parse requirement: unexpected ")" in selector "${selector}"`);
  }
  if (depth !== 0) throw badRequest(`unable to parse requirement: unclosed "(" in selector "${selector}"`);
  parts.push(selector.slice(start));
  return parts;
}

const SET_RE = /^\s*([^\s!=<>(),]+)\s+(in|notin)\s*\(([^()]*)\)\s*$/;
const OP_RE = /^\s*([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)\s*$/;
const EXISTS_RE = /^\s*(!?)\s*([^\s!=<>(),]+)\s*$/;

function parseRequirement(part: string, selector: string): LabelRequirement {
  let m = SET_RE.exec(part);
  if (m !== null) {
    const [, key = '', op = '', list = ''] = m;
    checkKey(key, selector);
    const values = list.split(',').map((v) => v.trim());
    if (values.length === 1 && values[0] === '') values.length = 0;
    if (values.length === 0) throw badRequest(`unable to parse requirement: for 'in', 'notin' operators, values set can't be empty in selector "${selector}"`);
    values.forEach((v) => checkValue(v, selector));
    return { key, op: op === 'in' ? 'in' : 'notin', values };
  }
  m = OP_RE.exec(part);
  if (m !== null) {
    const [, key = '', op = '', value = ''] = m;
    checkKey(key, selector);
    if (op === '>' || op === '<') {
      if (!/^-?\d+$/.test(value)) throw badRequest(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer in selector "${selector}"`);
      return { key, op: op === '>' ? 'gt' : 'lt', values: [value] };
    }
    checkValue(value, selector);
    return { key, op: op === '!=' ? '!=' : '=', values: [value] };
  }
  m = EXISTS_RE.exec(part);
  if (m !== null) {
    const [, bang = '', key = ''] = m;
    checkKey(key, selector);
    return { key, op: bang === '!' ? '!exists' : 'exists', values: [] };
  }
  throw badRequest(`unable to parse requirement: found '${part.trim()}', expected: identifier, '!', 'in', 'notin', '=', '==', '!=', '>', '<' in selector "${selector}"`);
}

function matchOne(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.op) {
    case 'exists': return has;
    case '!exists': return !has;
    case '=': return has && v === r.values[0];
    case '!=': return !has || v !== r.values[0];
    case 'in': return has && r.values.includes(v ?? '');
    case 'notin': return !has || !r.values.includes(v ?? '');
    case 'gt': return has && /^-?\d+$/.test(v ?? '') && Number(v) > Number(r.values[0]);
    case 'lt': return has && /^-?\d+$/.test(v ?? '') && Number(v) < Number(r.values[0]);
  }
}

/**
 * Parses a label selector string (`a=b,c!=d,e in (x,y),f notin (z),g,!h`). An empty string
 * selects everything. A malformed selector throws a 400 BadRequest Status.
 */
export function parseLabelSelector(selector: string | null | undefined): LabelSelector {
  const text = (selector ?? '').trim();
  const requirements = text === '' ? [] : splitTop(text).map((p) => parseRequirement(p, text));
  return {
    requirements,
    matches(labels) {
      const l = labels ?? {};
      for (const r of requirements) if (!matchOne(r, l)) return false;
      return true;
    },
  };
}
