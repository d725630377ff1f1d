import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { compileLabelSelector, LabelSelectorError, parseLabelSelector, type LabelRequirement } from '../../src/api/label-selector.js';
import { InformerConfigError } from '../../src/informer/informer-errors.js';
import { labelMatcher } from '../../src/informer/label-selector.js';
import { COMMON_FIELDS, fieldPath, parseFieldSelector } from '../../packages/testkit/src/api-server/field-selector.js';
import { requestLabelSelector } from '../../packages/testkit/src/api-server/request-selectors.js';
import { StatusError } from '../../packages/testkit/src/api-server/status-error.js';
import { report } from './report.js';

/**
 * Fuzzing the selector parsers. Label selectors have one parser (src/api), used by the client, the
 * informer listers and the embedded API server: generated selectors (random spacing, every operator,
 * numbers written every way) must be accepted or rejected, and match, alike in all three and like a
 * small reference model of apimachinery's rules written here; random and mutated text parses or is a
 * typed error (a 400 StatusError on the server), and matching never throws. Field selectors are the
 * server's: generated ones match like a model, random text parses or is a 400.
 */

function parsedOr400<T>(f: () => T): { ok: T } | { error: StatusError } {
  try {
    return { ok: f() };
  } catch (err) {
    if (!(err instanceof StatusError)) throw new Error(`not a StatusError: ${String(err)}`, { cause: err });
    expect(err.status.code).toBe(400);
    return { error: err };
  }
}

type Labels = Readonly<Record<string, string>>;

const alnum = fc.constantFrom(...'abcxyzABZ019'.split(''));
const inner = fc.constantFrom(...'abz09-_.'.split(''));
const name = fc.tuple(alnum, fc.string({ unit: inner, maxLength: 6 }), alnum).map(([a, m, b]) => `${a}${m}${b}`).filter((n) => n.length <= 63);
const dns = fc.array(fc.tuple(fc.constantFrom('a', 'k8s', 'x1'), fc.constantFrom('', '-io', 'b')).map(([a, b]) => `${a}${b}`), { minLength: 1, maxLength: 3 }).map((p) => p.join('.'));
const protoKey = fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf');
const labelKey = fc.oneof({ weight: 4, arbitrary: fc.oneof(name, fc.tuple(dns, name).map(([p, n]) => `${p}/${n}`)) }, { weight: 1, arbitrary: protoKey });
const labelValue = fc.oneof(fc.constant(''), name);
/** Integers written every way: canonical, signed, zero-padded, `-0`, decimals, exponents, beyond int64. */
const numberish = fc.oneof(
  fc.integer({ min: -99, max: 99 }).map(String),
  fc.constantFrom('5.0', '1e0', '+5', '05', '-0', '+0', '007', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809', '18446744073709551616', '99999999999999999999'),
  fc.bigInt({ min: -(2n ** 65n), max: 2n ** 65n }).map(String),
  fc.tuple(fc.constantFrom('+', '-', ''), fc.constantFrom('', '0', '00'), fc.nat(999)).map(([s, z, n]) => `${s}${z}${n}`),
  fc.tuple(fc.integer({ min: -9, max: 99 }), fc.nat(9)).map(([a, b]) => `${a}.${b}`),
  fc.tuple(fc.nat(9), fc.integer({ min: -3, max: 3 })).map(([a, e]) => `${a}e${e}`),
);
const anyValue = fc.oneof(labelValue, numberish);
const ws = fc.constantFrom('', ' ', '  ', '\t');

/** A requirement as written: `==` kept apart from `=`, an `in`/`notin` list may be empty (`()`). */
interface Written {
  readonly key: string;
  readonly op: '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
  readonly values: readonly string[];
}

const written: fc.Arbitrary<Written> = fc.oneof(
  fc.record({ key: labelKey, op: fc.constantFrom('=' as const, '==' as const, '!=' as const), values: anyValue.map((v) => [v]) }),
  fc.record({ key: labelKey, op: fc.constantFrom('in' as const, 'notin' as const), values: fc.array(anyValue, { maxLength: 3 }) }),
  fc.record({ key: labelKey, op: fc.constantFrom('exists' as const, '!' as const), values: fc.constant([]) }),
  fc.record({ key: labelKey, op: fc.constantFrom('gt' as const, 'lt' as const), values: numberish.map((v) => [v]) }),
);

function render(r: Written, s: readonly string[]): string {
  const w = (i: number): string => s[i % s.length] ?? '';
  switch (r.op) {
    case '=':
    case '==':
    case '!=': return `${r.key}${w(0)}${r.op}${w(1)}${r.values[0] ?? ''}`;
    case 'in':
    case 'notin': return `${r.key} ${r.op}${w(0)}(${r.values.length === 0 ? w(1) : r.values.map((v, i) => `${w(i)}${v}${w(i + 1)}`).join(',')})`;
    case 'exists': return `${w(0)}${r.key}${w(1)}`;
    case '!': return `!${w(0)}${r.key}`;
    case 'gt': return `${r.key}${w(0)}>${w(1)}${r.values[0] ?? ''}`;
    case 'lt': return `${r.key}${w(0)}<${w(1)}${r.values[0] ?? ''}`;
  }
}

/*
 * The reference model: apimachinery's rules, restated independently of src/api.
 * - A label value is empty, or at most 63 characters of [-A-Za-z0-9_.] that start and end alphanumeric.
 * - `x in ()` is `x in ("")`; values form a set.
 * - `>`/`<` take one value that strconv.ParseInt(v, 10, 64) accepts and that is also a label value.
 * - Matching: in/= need the key with a listed value; notin/!= hold without the key; gt/lt need the
 *   key with a value ParseInt accepts, compared as int64.
 */
function goParseInt64(s: string): bigint | undefined {
  const sign = s.startsWith('-') ? -1n : 1n;
  const digits = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
  if (digits === '' || [...digits].some((c) => c < '0' || c > '9')) return undefined;
  let n = 0n;
  for (const c of digits) n = n * 10n + BigInt(c.charCodeAt(0) - 48);
  const v = sign * n;
  return v >= -(1n << 63n) && v <= (1n << 63n) - 1n ? v : undefined;
}

function isLabelValue(v: string): boolean {
  if (v === '') return true;
  const ok = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9]/.test(c);
  return v.length <= 63 && ok(v[0]) && ok(v[v.length - 1]) && [...v].every((c) => /[-A-Za-z0-9_.]/.test(c));
}

function valueSet(r: Written): string[] {
  return r.values.length === 0 && (r.op === 'in' || r.op === 'notin') ? [''] : [...new Set(r.values)].sort();
}

function modelValid(r: Written): boolean {
  if ((r.op === 'gt' || r.op === 'lt') && goParseInt64(r.values[0] ?? '') === undefined) return false;
  return r.values.every(isLabelValue);
}

function modelMatches(r: Written, labels: Labels): boolean {
  const has = Object.keys(labels).includes(r.key);
  const v = labels[r.key] ?? '';
  const set = valueSet(r);
  switch (r.op) {
    case 'exists': return has;
    case '!': return !has;
    case '=': case '==': case 'in': return has && set.includes(v);
    case '!=': case 'notin': return !has || !set.includes(v);
    case 'gt': case 'lt': {
      const n = has ? goParseInt64(v) : undefined;
      const bound = goParseInt64(r.values[0] ?? '');
      if (n === undefined || bound === undefined) return false;
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

function expectedRequirement(r: Written): LabelRequirement {
  return { key: r.key, op: r.op === '==' ? '=' : r.op, values: r.op === 'exists' || r.op === '!' ? [] : valueSet(r) };
}

/** Label sets that use the requirements' keys (so they get tested), others, and prototype names. */
function labelSetsFor(reqs: readonly Written[]): fc.Arbitrary<Labels[]> {
  const keys = fc.oneof(fc.constantFrom(...reqs.map((r) => r.key)), labelKey, fc.constant('__proto__'));
  return fc.array(fc.dictionary(keys, fc.oneof(anyValue, fc.constantFrom(' 5', '0x5', '5_0', '٣')), { maxKeys: 4 }), { maxLength: 5 });
}

/** Compiles with `compile`: the matcher, or 'error' when it threw an instance of `type`. */
function attempt<M>(compile: () => M, type: abstract new (...args: never[]) => Error): M | 'error' {
  try {
    return compile();
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return 'error';
  }
}

describe('fuzz: label selectors (one parser: client, informer listers, embedded server) against a reference model', () => {
  it('generated selectors, numbers written every way: accepted, rejected and matched alike everywhere and like the model', () => {
    let runs = 0;
    let rejected = 0;
    fc.assert(
      fc.property(
        fc.array(written, { minLength: 1, maxLength: 4 }).chain((reqs) => fc.tuple(fc.constant(reqs), labelSetsFor(reqs))),
        fc.array(ws, { minLength: 1, maxLength: 5 }),
        ([reqs, labelSets], spaces) => {
          runs++;
          const text = reqs.map((r) => render(r, spaces)).join(`${spaces[0] ?? ''},${spaces[1] ?? ''}`);
          const valid = reqs.every(modelValid);
          const client = attempt(() => compileLabelSelector(text), LabelSelectorError);
          const informer = attempt(() => labelMatcher(text), InformerConfigError);
          const server = attempt(() => requestLabelSelector(text), StatusError);
          expect([client === 'error', informer === 'error', server === 'error'], text).toEqual([!valid, !valid, !valid]);
          if (client === 'error' || informer === 'error' || server === 'error') {
            rejected++;
            return;
          }
          expect(parseLabelSelector(text).requirements, text).toEqual(reqs.map(expectedRequirement));
          for (const labels of labelSets) {
            const want = reqs.every((r) => modelMatches(r, labels));
            const where = `${text} on ${JSON.stringify(labels)}`;
            expect([client(labels), informer(labels), server.matches(labels)], where).toEqual([want, want, want]);
          }
        },
      ),
      { numRuns: 1000 },
    );
    report('selectors / generated label selectors vs model', runs, `${rejected} rejected everywhere`);
  });

  it('random and mutated selector text: a 400 on the server exactly when the client throws; matching never throws', () => {
    let runs = 0;
    let rejected = 0;
    const mutated = fc.tuple(fc.array(written, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom('(', ')', ',', '!', '=', ' ', '', '\u0000', '\u00a0', '\n', 'é', 'in', '\\', '/', '<', '>', '+', '-', '.')), { minLength: 1, maxLength: 4 }))
      .map(([reqs, edits]) => {
        let t = reqs.map((r) => render(r, [''])).join(',');
        for (const [at, ch] of edits) {
          const i = at % (t.length + 1);
          t = `${t.slice(0, i)}${ch}${t.slice(i + 1)}`;
        }
        return t;
      });
    const tokens = fc.array(fc.constantFrom('a', 'b', '=', '!', ',', '(', ')', ' in ', ' notin ', 'x/y', '>', '<', '1', '-1', '+1', '1.0', ' '), { maxLength: 10 }).map((p) => p.join(''));
    const labels = fc.dictionary(fc.oneof(fc.string(), protoKey, fc.constant('__proto__')), fc.oneof(fc.string(), numberish), { maxKeys: 3 });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), mutated, tokens), labels, (text, l) => {
        runs++;
        const r = parsedOr400(() => requestLabelSelector(text));
        const client = attempt(() => compileLabelSelector(text), LabelSelectorError);
        const informer = attempt(() => labelMatcher(text), InformerConfigError);
        expect([client === 'error', informer === 'error'], text).toEqual(['error' in r, 'error' in r]);
        if ('error' in r || client === 'error' || informer === 'error') {
          rejected++;
          return;
        }
        const want = r.ok.matches(l);
        expect(typeof want).toBe('boolean');
        expect([client(l), informer(l)]).toEqual([want, want]);
        expect(typeof r.ok.matches(undefined)).toBe('boolean');
      }),
      { numRuns: 1500 },
    );
    report('selectors / random + mutated label selectors', runs, `${rejected} rejected with 400 and typed errors`);
  });

  it('structured selectors (matchLabels / matchExpressions) match like the equivalent string and the model', () => {
    let runs = 0;
    const setBased = written.filter((r) => r.op !== 'gt' && r.op !== 'lt' && modelValid(r));
    fc.assert(
      fc.property(
        fc.array(setBased, { minLength: 1, maxLength: 4 }).chain((reqs) => fc.tuple(fc.constant(reqs), labelSetsFor(reqs))),
        ([reqs, sets]) => {
          runs++;
          const operator = { '=': 'In', '==': 'In', '!=': 'NotIn', in: 'In', notin: 'NotIn', exists: 'Exists', '!': 'DoesNotExist' } as const;
          const matchExpressions = reqs.map((r) => ({
            key: r.key,
            operator: operator[r.op as keyof typeof operator],
            ...(r.op === 'exists' || r.op === '!' ? {} : { values: valueSet(r) }),
          }));
          const structured = compileLabelSelector({ matchExpressions });
          const text = compileLabelSelector(reqs.map((r) => render(r, [''])).join(','));
          for (const labels of sets) {
            const want = reqs.every((r) => modelMatches(r, labels));
            expect([structured(labels), text(labels)]).toEqual([want, want]);
          }
        },
      ),
      { numRuns: 500 },
    );
    report('selectors / structured selectors', runs);
  });
});

describe('fuzz: field selectors (embedded server parser)', () => {
  const fields = { ...COMMON_FIELDS, 'spec.nodeName': fieldPath('spec.nodeName'), 'status.phase': fieldPath('status.phase') };
  const field = fc.constantFrom(...Object.keys(fields));
  const value = fc.string({ unit: fc.constantFrom('a', 'b', '1', '-', '.', ' ', '=', ',', '\\'), maxLength: 6 });
  const escape = (v: string): string => v.replace(/[\\,=]/g, (c) => `\\${c}`);

  it('generated field selectors match like the model, escapes included', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.array(fc.record({ field, op: fc.constantFrom('=', '==', '!='), value: value.map((v) => v.trim()) }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ name: value, namespace: value, node: fc.option(value, { nil: undefined }), phase: fc.oneof(value, fc.integer(), fc.boolean(), fc.constant(null)) }), { maxLength: 4 }),
        (terms, objs) => {
          runs++;
          const text = terms.map((t) => `${t.field}${t.op}${escape(t.value)}`).join(',');
          const sel = parseFieldSelector(text, fields);
          expect(sel.terms.map((t) => [t.field, t.value])).toEqual(terms.map((t) => [t.field, t.value]));
          for (const o of objs) {
            const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: o.name, namespace: o.namespace }, spec: { nodeName: o.node }, status: { phase: o.phase } } as UnstructuredObject;
            const actual = (f: string): string => {
              const v = f === 'metadata.name' ? o.name : f === 'metadata.namespace' ? o.namespace : f === 'spec.nodeName' ? o.node : o.phase;
              return v === undefined || v === null ? '' : String(v);
            };
            expect(sel.matches(obj)).toBe(terms.every((t) => (actual(t.field) === t.value) === (t.op !== '!=')));
          }
        },
      ),
      { numRuns: 600 },
    );
    report('selectors / generated field selectors', runs);
  });

  it('random field selector text (prototype names included) parses or is a 400 StatusError; matching never throws', () => {
    let runs = 0;
    let rejected = 0;
    const protoField = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__');
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.tuple(fc.oneof(field, protoField, fc.string()), fc.constantFrom('=', '==', '!=', '', '=!'), fc.string()).map(([f, o, v]) => `${f}${o}${v}`)),
        fc.anything(),
        (text, obj) => {
          runs++;
          const r = parsedOr400(() => parseFieldSelector(text, fields));
          if ('error' in r) {
            rejected++;
            return;
          }
          for (const t of r.ok.terms) expect(Object.keys(fields)).toContain(t.field);
          const o = (typeof obj === 'object' && obj !== null ? obj : { metadata: obj }) as UnstructuredObject;
          expect(typeof r.ok.matches(o)).toBe('boolean');
        },
      ),
      { numRuns: 1500 },
    );
    report('selectors / random field selectors', runs, `${rejected} rejected with 400`);
  });
});
