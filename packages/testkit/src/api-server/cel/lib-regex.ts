/**
 * Kubernetes' CEL regex library (k8s.io/apiserver/pkg/cel/library/regex.go): `find`, `findAll`;
 * and the function form of the standard `matches` (`matches(s, re)`), which the evaluator only has
 * as a method: it runs the method, so both forms use the same RE2 engine.
 */
import { celEnv, celFunc, celMethod, CelScalar, isCelError, parse, plan, type CelFunc } from '@bufbuild/cel';
import { chargeItems } from './cost.js';
import { fail } from './opaque.js';

const CACHE = new Map<string, RegExp>();

/** A RE2 pattern as a JS RegExp (the common subset: RE2 has no backreferences or lookaround). */
function compile(pattern: string): RegExp {
  const hit = CACHE.get(pattern);
  if (hit !== undefined) return hit;
  let flags = 'gu';
  let p = pattern;
  const m = /^\(\?([imsU]+)\)/.exec(p);
  if (m !== null) {
    p = p.slice(m[0].length);
    for (const f of m[1] ?? '') if (f !== 'U' && !flags.includes(f)) flags += f;
  }
  const re = new RegExp(p, flags);
  if (CACHE.size > 256) CACHE.clear();
  CACHE.set(pattern, re);
  return re;
}

function findAll(s: string, pattern: string, limit: number): string[] | Error {
  let re: RegExp;
  try {
    re = compile(pattern);
  } catch (e) {
    return fail(`error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
  }
  chargeItems(s.length);
  const out: string[] = [];
  for (const m of s.matchAll(re)) {
    if (limit >= 0 && out.length >= limit) break;
    out.push(m[0]);
  }
  return out;
}

const matchesMethod = plan(celEnv({ variables: { s: CelScalar.STRING, re: CelScalar.STRING } }), parse('s.matches(re)'));

/** The regex functions. */
export const REGEX_FUNCS: readonly CelFunc[] = [
  celFunc('matches', [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (text: string, re: string) => {
    chargeItems(text.length);
    const r = matchesMethod({ s: text, re });
    return isCelError(r) ? fail(r.message) : r === true;
  }),
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (this: string, pattern: string) {
    const r = findAll(this, pattern, 1);
    return r instanceof Error ? fail(r.message) : (r[0] ?? '');
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], CelScalar.DYN, function (this: string, pattern: string) {
    const r = findAll(this, pattern, -1);
    return r instanceof Error ? fail(r.message) : r;
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], CelScalar.DYN, function (this: string, pattern: string, n: bigint) {
    if (n === 0n) return [];
    const r = findAll(this, pattern, Number(n));
    return r instanceof Error ? fail(r.message) : r;
  }),
];
