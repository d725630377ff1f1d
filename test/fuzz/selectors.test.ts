import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { COMMON_FIELDS, fieldPath, parseFieldSelector } from '../../src/testing/api-server/field-selector.js';
import { parseLabelSelector, type LabelRequirement } from '../../src/testing/api-server/label-selector.js';
import { StatusError } from '../../src/testing/api-server/status-error.js';
import { LabelSelectorError } from '../../src/api/label-selector.js';
import { compileLabelSelector } from '../../src/api/label-selector.js';
import { InformerConfigError } from '../../src/informer/informer-errors.js';
import { labelMatcher } from '../../src/informer/label-selector.js';
import { report } from './report.js';

/**
 * Fuzzing the embedded server's selector parsers. Generated selectors (random spacing, every
 * operator) parse to the requirements they were written from and match like a reference model;
 * random and mutated text parses or throws a 400 StatusError, never anything else; matching never
 * throws, whatever the object.
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

const alnum = fc.constantFrom(...'abcxyzABZ019'.split(''));
const inner = fc.constantFrom(...'abz09-_.'.split(''));
const name = fc.tuple(alnum, fc.string({ unit: inner, maxLength: 6 }), alnum).map(([a, m, b]) => `${a}${m}${b}`).filter((n) => n.length <= 63);
const dns = fc.array(fc.tuple(fc.constantFrom('a', 'k8s', 'x1'), fc.constantFrom('', '-io', 'b')).map(([a, b]) => `${a}${b}`), { minLength: 1, maxLength: 3 }).map((p) => p.join('.'));
const labelKey = fc.oneof(name, fc.tuple(dns, name).map(([p, n]) => `${p}/${n}`));
const labelValue = fc.oneof(fc.constant(''), name);
const ws = fc.constantFrom('', ' ', '  ', '\t');

const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({ key: labelKey, op: fc.constantFrom('=' as const, '!=' as const), values: labelValue.map((v) => [v]) }),
  fc.record({ key: labelKey, op: fc.constantFrom('in' as const, 'notin' as const), values: fc.array(labelValue, { minLength: 1, maxLength: 3 }).filter((vs) => !(vs.length === 1 && vs[0] === '')) }),
  fc.record({ key: labelKey, op: fc.constantFrom('exists' as const, '!exists' as const), values: fc.constant([]) }),
  fc.record({ key: labelKey, op: fc.constantFrom('gt' as const, 'lt' as const), values: fc.integer({ min: -99, max: 99 }).map((n) => [String(n)]) }),
);

function render(r: LabelRequirement, s: readonly string[]): string {
  const w = (i: number): string => s[i % s.length] ?? '';
  switch (r.op) {
    case '=': return `${r.key}${w(0)}${w(1) === ' ' ? '==' : '='}${w(2)}${r.values[0] ?? ''}`;
    case '!=': return `${r.key}${w(0)}!=${w(1)}${r.values[0] ?? ''}`;
    case 'in':
    case 'notin': return `${r.key} ${r.op}${w(0)}(${r.values.map((v, i) => `${w(i)}${v}${w(i + 1)}`).join(',')})`;
    case 'exists': return `${w(0)}${r.key}${w(1)}`;
    case '!exists': return `!${w(0)}${r.key}`;
    case 'gt': return `${r.key}${w(0)}>${w(1)}${r.values[0] ?? ''}`;
    case 'lt': return `${r.key}${w(0)}<${w(1)}${r.values[0] ?? ''}`;
  }
}

/** An independent model of label matching (apimachinery's labels.Requirement.Matches). */
function model(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.keys(labels).includes(r.key);
  const v = labels[r.key];
  switch (r.op) {
    case 'exists': return has;
    case '!exists': return !has;
    case '=': case 'in': return has && r.values.includes(v ?? '');
    case '!=': case 'notin': return !has || !r.values.includes(v ?? '');
    case 'gt': case 'lt': {
      if (!has || !/^-?\d+$/.test(v ?? '')) return false;
      const n = Number(v);
      const bound = Number(r.values[0]);
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

describe('fuzz: label selectors (embedded server parser)', () => {
  it('a generated selector parses to its requirements and matches like the model', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.array(requirement, { minLength: 1, maxLength: 4 }),
        fc.array(ws, { minLength: 1, maxLength: 5 }),
        fc.array(fc.dictionary(fc.oneof(labelKey, fc.constantFrom('__proto__', 'constructor', 'toString')), fc.oneof(labelValue, fc.integer({ min: -200, max: 200 }).map(String)), { maxKeys: 4 }), { maxLength: 5 }),
        (reqs, spaces, labelSets) => {
          runs++;
          const text = reqs.map((r) => render(r, spaces)).join(`${spaces[0] ?? ''},${spaces[1] ?? ''}`);
          const sel = parseLabelSelector(text);
          expect(sel.requirements).toEqual(reqs);
          for (const labels of labelSets) expect(sel.matches(labels)).toBe(reqs.every((r) => model(r, labels)));
        },
      ),
      { numRuns: 600 },
    );
    report('selectors / generated label selectors', runs);
  });

  it('random and mutated selector text parses or is a 400 StatusError; matching never throws', () => {
    let runs = 0;
    let rejected = 0;
    const mutated = fc.tuple(fc.array(requirement, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(), fc.constantFrom('(', ')', ',', '!', '=', ' ', '', '\u0000', 'é', 'in', '\\', '/', '<')), { minLength: 1, maxLength: 4 }))
      .map(([reqs, edits]) => {
        let t = reqs.map((r) => render(r, [''])).join(',');
        for (const [at, ch] of edits) {
          const i = at % (t.length + 1);
          t = `${t.slice(0, i)}${ch}${t.slice(i + 1)}`;
        }
        return t;
      });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), mutated), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), (text, labels) => {
        runs++;
        const r = parsedOr400(() => parseLabelSelector(text));
        if ('error' in r) {
          rejected++;
          return;
        }
        expect(typeof r.ok.matches(labels)).toBe('boolean');
        expect(typeof r.ok.matches(undefined)).toBe('boolean');
      }),
      { numRuns: 1500 },
    );
    report('selectors / random + mutated label selectors', runs, `${rejected} rejected with 400`);
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

describe('fuzz: client-side label selector matching (src/api, used by listers and controllers) against the server parser', () => {
  const protoKeys = fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__');
  const reqNoCmp = requirement.filter((r) => r.op !== 'gt' && r.op !== 'lt');
  const anyRequirement = fc.oneof(
    { weight: 4, arbitrary: requirement },
    { weight: 1, arbitrary: fc.record({ key: fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf'), op: fc.constantFrom('exists' as const, '!exists' as const, '=' as const, '!=' as const), values: fc.constantFrom([], ['x'], ['']) }).map((r) => ({ ...r, values: r.op === 'exists' || r.op === '!exists' ? [] : r.values.length === 0 ? [''] : r.values })) },
  );
  const labelSets = fc.array(fc.dictionary(fc.oneof(labelKey, protoKeys), fc.oneof(labelValue, fc.constantFrom('1', '-5', '42')), { maxKeys: 4 }), { maxLength: 5 });

  it('the controller and informer matchers agree with the server on generated selectors, prototype-named keys included', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(anyRequirement, { minLength: 1, maxLength: 4 }), labelSets, (reqs, sets) => {
        runs++;
        const text = reqs.map((r) => render(r, [' '])).join(',');
        const server = parseLabelSelector(text);
        const ctrl = compileLabelSelector(text);
        const informerOk = reqs.every((r) => r.op !== 'gt' && r.op !== 'lt');
        const inf = informerOk ? labelMatcher(text) : undefined;
        for (const labels of sets) {
          const want = server.matches(labels);
          expect(ctrl(labels), `controller: ${text} on ${JSON.stringify(labels)}`).toBe(want);
          if (inf !== undefined) expect(inf(labels), `informer: ${text} on ${JSON.stringify(labels)}`).toBe(want);
        }
      }),
      { numRuns: 800 },
    );
    report('selectors / src matchers vs server parser', runs);
  });

  it('structured selectors (matchLabels / matchExpressions) match like the equivalent string', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(reqNoCmp, { minLength: 1, maxLength: 4 }), labelSets, (reqs, sets) => {
        runs++;
        const matchExpressions = reqs.map((r) => ({
          key: r.key,
          operator: ({ '=': 'In', '!=': 'NotIn', in: 'In', notin: 'NotIn', exists: 'Exists', '!exists': 'DoesNotExist' } as const)[r.op as '=' | '!=' | 'in' | 'notin' | 'exists' | '!exists'],
          ...(r.op === 'exists' || r.op === '!exists' ? {} : { values: r.values }),
        }));
        const structured = compileLabelSelector({ matchExpressions });
        const server = parseLabelSelector(reqs.map((r) => render(r, [''])).join(','));
        for (const labels of sets) expect(structured(labels)).toBe(server.matches(labels));
      }),
      { numRuns: 500 },
    );
    report('selectors / structured selectors', runs);
  });

  it('random text: a typed error or a matcher that never throws', () => {
    let runs = 0;
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(fc.constantFrom('a', 'b', '=', '!', ',', '(', ')', ' in ', ' notin ', 'x/y', '>', '1', ' '), { maxLength: 10 }).map((p) => p.join(''))), fc.dictionary(fc.oneof(fc.string(), protoKeys), fc.string(), { maxKeys: 3 }), (text, labels) => {
        runs++;
        for (const [compile, type] of [[labelMatcher, InformerConfigError], [compileLabelSelector, LabelSelectorError]] as const) {
          let m: ((l: Record<string, string>) => boolean) | undefined;
          try {
            m = compile(text);
          } catch (err) {
            rejected++;
            expect(err).toBeInstanceOf(type);
            continue;
          }
          expect(typeof m(labels)).toBe('boolean');
        }
      }),
      { numRuns: 1000 },
    );
    report('selectors / src matchers, random text', runs * 2, `${rejected} typed errors`);
  });
});
