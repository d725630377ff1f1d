import { InformerConfigError } from './informer-errors.js';

/** A label selector: the string form (`a=b,c!=d,e in (x,y),f notin (z),g,!h`) or match-labels. */
export type LabelSelector = string | Readonly<Record<string, string>>;

/** Tests a label set. */
export type LabelMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

type Req = (labels: Readonly<Record<string, string>>) => boolean;

/** The value of label `k`, own properties only (a label named `constructor` is not Object's). */
const at = (l: Readonly<Record<string, string>>, k: string): string | undefined => (Object.hasOwn(l, k) ? l[k] : undefined);

const KEY = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

function key(k: string, selector: string): string {
  const t = k.trim();
  if (!KEY.test(t)) throw new InformerConfigError(`invalid label selector ${JSON.stringify(selector)}: bad key ${JSON.stringify(t)}`);
  return t;
}

/** Splits on commas that are not inside parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function term(t: string, selector: string): Req {
  const set = /^(.+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(t);
  if (set !== null) {
    const k = key(set[1] ?? '', selector);
    const values = new Set((set[3] ?? '').split(',').map((v) => v.trim()));
    return set[2] === 'in'
      ? (l) => {
          const v = at(l, k);
          return v !== undefined && values.has(v);
        }
      : (l) => {
          const v = at(l, k);
          return v === undefined || !values.has(v);
        };
  }
  const ne = /^(.+?)!=(.*)$/.exec(t);
  if (ne !== null) {
    const k = key(ne[1] ?? '', selector);
    const v = (ne[2] ?? '').trim();
    return (l) => at(l, k) !== v;
  }
  const eq = /^(.+?)==?(.*)$/.exec(t);
  if (eq !== null) {
    const k = key(eq[1] ?? '', selector);
    const v = (eq[2] ?? '').trim();
    return (l) => at(l, k) === v;
  }
  if (t.startsWith('!')) {
    const k = key(t.slice(1), selector);
    return (l) => at(l, k) === undefined;
  }
  const k = key(t, selector);
  return (l) => at(l, k) !== undefined;
}

/**
 * Compiles a label selector (Kubernetes syntax: `=`, `==`, `!=`, `in`, `notin`, exists `k`,
 * not-exists `!k`; terms are ANDed). An empty selector matches everything. Throws
 * {@link InformerConfigError} on a malformed selector.
 */
export function labelMatcher(selector: LabelSelector | undefined): LabelMatcher {
  if (selector === undefined) return () => true;
  let reqs: Req[];
  if (typeof selector === 'string') {
    reqs = terms(selector).map((t) => term(t, selector));
  } else {
    reqs = Object.entries(selector).map(([k, v]) => (l) => at(l, k) === v);
  }
  return (labels) => {
    const l = labels ?? {};
    return reqs.every((r) => r(l));
  };
}
