/** A malformed label selector: a bad key, value or operator, or a syntax error. */
export class LabelSelectorError extends Error {
  override name = 'LabelSelectorError';
  constructor(
    readonly selector: unknown,
    reason: string,
  ) {
    super(`invalid label selector ${JSON.stringify(selector)}: ${reason}`);
  }
}

/** A set-based requirement of a {@link StructuredLabelSelector} (`metav1.LabelSelectorRequirement`). */
export interface LabelSelectorRequirement {
  readonly key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist` (any other is refused at compile time of the selector). */
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | (string & {});
  readonly values?: readonly string[];
}

/** A structured label selector (`metav1.LabelSelector`); all terms are ANDed. */
export interface StructuredLabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** Tests a label map (absent labels = `{}`). */
export type SelectorMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

type Op = 'in' | 'notin' | 'exists' | '!' | '=' | '!=' | 'gt' | 'lt';
interface Requirement {
  readonly key: string;
  readonly op: Op;
  readonly values: readonly string[];
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Compiles a label selector — the string syntax of `kubectl -l` (`a=b,c!=d,e in (x,y),f notin (z),g,!h`)
 * or a structured {@link StructuredLabelSelector} — into a matcher. The empty selector matches everything.
 * @throws LabelSelectorError for a malformed selector, a bad key or value, or a bad operator.
 */
export function compileLabelSelector(selector: string | StructuredLabelSelector): SelectorMatcher {
  const reqs = typeof selector === 'string' ? parseString(selector) : fromStructured(selector);
  return (labels) => {
    const l = labels ?? {};
    return reqs.every((r) => matches(r, l));
  };
}

function matches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.op) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return has && r.values.includes(value as string);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value as string);
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const n = Number(value);
      const bound = Number(r.values[0]);
      if (!Number.isInteger(n)) return false;
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

function checkKey(selector: unknown, key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    throw new LabelSelectorError(selector, `key prefix ${JSON.stringify(prefix)} must be a DNS subdomain`);
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    throw new LabelSelectorError(selector, `key ${JSON.stringify(key)} is not a valid label key`);
  }
}

function checkValue(selector: unknown, value: string): void {
  if (value.length > 63 || (value !== '' && !NAME.test(value))) {
    throw new LabelSelectorError(selector, `value ${JSON.stringify(value)} is not a valid label value`);
  }
}

function fromStructured(sel: StructuredLabelSelector): Requirement[] {
  if (sel === null || typeof sel !== 'object') throw new LabelSelectorError(sel, 'must be a string or an object');
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    checkKey(sel, key);
    if (typeof value !== 'string') throw new LabelSelectorError(sel, `matchLabels[${key}] must be a string`);
    checkValue(sel, value);
    out.push({ key, op: '=', values: [value] });
  }
  for (const e of sel.matchExpressions ?? []) {
    checkKey(sel, e.key);
    const values = e.values ?? [];
    for (const v of values) checkValue(sel, v);
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) throw new LabelSelectorError(sel, `${e.operator} needs at least one value`);
        out.push({ key: e.key, op: e.operator === 'In' ? 'in' : 'notin', values });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) throw new LabelSelectorError(sel, `${e.operator} takes no values`);
        out.push({ key: e.key, op: e.operator === 'Exists' ? 'exists' : '!', values: [] });
        break;
      default:
        throw new LabelSelectorError(sel, `unknown operator ${JSON.stringify(e.operator)}`);
    }
  }
  return out;
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
    if (depth < 0 || depth > 1) throw new LabelSelectorError(selector, 'unbalanced parentheses');
  }
  if (depth !== 0) throw new LabelSelectorError(selector, 'unbalanced parentheses');
  terms.push(selector.slice(start));
  return terms;
}

const SET_TERM = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/;
const CMP_TERM = /^([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)$/;

function parseString(selector: string): Requirement[] {
  if (typeof selector !== 'string') throw new LabelSelectorError(selector, 'must be a string or an object');
  if (selector.trim() === '') return [];
  const out: Requirement[] = [];
  for (const raw of splitTerms(selector)) {
    const term = raw.trim();
    if (term === '') throw new LabelSelectorError(selector, 'empty requirement');
    let m: RegExpExecArray | null;
    if ((m = SET_TERM.exec(term)) !== null) {
      const [, key, op, list] = m as unknown as [string, string, 'in' | 'notin', string];
      checkKey(selector, key);
      const values = list.split(',').map((v) => v.trim());
      if (values.length === 1 && values[0] === '' && op === 'in') {
        throw new LabelSelectorError(selector, `${key} in () needs at least one value`);
      }
      for (const v of values) checkValue(selector, v);
      out.push({ key, op, values });
    } else if ((m = CMP_TERM.exec(term)) !== null) {
      const [, key, op, value] = m as unknown as [string, string, string, string];
      checkKey(selector, key);
      if (op === '>' || op === '<') {
        if (!/^-?\d+$/.test(value)) throw new LabelSelectorError(selector, `${key}${op} needs an integer value`);
        out.push({ key, op: op === '>' ? 'gt' : 'lt', values: [value] });
      } else {
        checkValue(selector, value);
        out.push({ key, op: op === '!=' ? '!=' : '=', values: [value] });
      }
    } else if (term.startsWith('!')) {
      const key = term.slice(1).trim();
      checkKey(selector, key);
      out.push({ key, op: '!', values: [] });
    } else {
      checkKey(selector, term);
      out.push({ key: term, op: 'exists', values: [] });
    }
  }
  return out;
}
