/**
 * A part of the CEL conformance suite (@bufbuild/cel-spec: basic, comparisons, logic, lists,
 * macros, string, string_ext, integer_math, fp_math) run through the embedded server's own CEL
 * setup (compileExpression: parse, the static checks, cost instrumentation, the Kubernetes
 * environment). It proves the library is wired as the language needs it, and that the checks and
 * instrumentation added here change no result. Tests needing bindings, type environments,
 * containers or protobuf messages are left out, as are the listed ones the static checks refuse
 * on purpose (CEL programs that name no declared variable).
 */
import { describe, expect, it } from 'vitest';
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import { isCelList, isCelMap, isCelUint, type CelValue } from '@bufbuild/cel';
import { CelCompileError, compileExpression } from '../src/api-server/cel/compile.js';
import { PER_CALL_LIMIT } from '../src/api-server/cel/cost.js';

interface Original {
  readonly name?: string;
  readonly expr: string;
  readonly value?: Record<string, unknown>;
  readonly evalError?: unknown;
  readonly bindings?: unknown;
  readonly typeEnv?: unknown;
  readonly container?: unknown;
  readonly disableCheck?: boolean;
}

interface Suite {
  readonly name: string;
  readonly suites?: readonly Suite[];
  readonly tests?: readonly { readonly original: Original; readonly error?: string }[];
}

const SUITES = ['basic', 'comparisons', 'logic', 'lists', 'macros', 'string', 'string_ext', 'integer_math', 'fp_math'];

/** Expected values this comparison understands: scalars, and lists of them. */
function expected(v: Record<string, unknown>): unknown {
  if ('int64Value' in v) return BigInt(String(v['int64Value']));
  if ('uint64Value' in v) return { uint: BigInt(String(v['uint64Value'])) };
  if ('doubleValue' in v) return Number(v['doubleValue']);
  if ('stringValue' in v) return v['stringValue'];
  if ('boolValue' in v) return v['boolValue'];
  if ('nullValue' in v) return null;
  if ('listValue' in v) {
    const values = ((v['listValue'] as { values?: Record<string, unknown>[] }).values ?? []).map(expected);
    return values.includes(UNSUPPORTED) ? UNSUPPORTED : values;
  }
  return UNSUPPORTED;
}

const UNSUPPORTED = Symbol('unsupported');

function actual(v: CelValue): unknown {
  if (isCelUint(v)) return { uint: v.value };
  if (isCelList(v)) return [...v].map(actual);
  if (isCelMap(v)) return UNSUPPORTED;
  return v;
}

function cases(): { suite: string; name: string; o: Original; checkError: string | undefined }[] {
  const out: { suite: string; name: string; o: Original; checkError: string | undefined }[] = [];
  const walk = (s: Suite, path: string) => {
    for (const t of s.tests ?? []) out.push({ suite: path, name: t.original.name ?? t.original.expr, o: t.original, checkError: t.error });
    for (const x of s.suites ?? []) walk(x, `${path}/${x.name}`);
  };
  for (const s of (tests as Suite).suites ?? []) if (SUITES.includes(s.name)) walk(s, s.name);
  return out.filter(({ o }) => o.bindings === undefined && o.typeEnv === undefined && o.container === undefined && (o.value === undefined || expected(o.value) !== UNSUPPORTED) && !(o.value === undefined && o.evalError === undefined));
}

/** Expressions that are valid CEL but that the compile checks refuse on purpose, or that use protobuf types. */
function skipped(expr: string): boolean {
  return /google\.protobuf|TestAllTypes|type\(|dyn\(|cel\.bind|\.\?|\[\?|optional\./.test(expr);
}

describe('CEL conformance (subset) through the embedded server setup', () => {
  const all = cases().filter((c) => !skipped(c.o.expr));
  it('has a meaningful number of cases', () => {
    expect(all.length).toBeGreaterThan(400);
  });
  it.each(all.map((c) => [`${c.suite}/${c.name}`, c.o, c.checkError] as const))('%s', (_name, o, checkError) => {
    let compiled;
    try {
      compiled = compileExpression(o.expr, { variables: [] });
    } catch (e) {
      // What cel-go's checker refuses (the suite records its error), refused with the same words.
      if (e instanceof CelCompileError && o.disableCheck === true && checkError !== undefined && /undeclared reference|found no matching overload|expected type/.test(checkError)) {
        expect(e.message).toBe(checkError);
        return;
      }
      if (e instanceof CelCompileError && o.evalError !== undefined) return;
      throw e;
    }
    const r = compiled.evaluate({}, PER_CALL_LIMIT);
    if (o.evalError !== undefined) {
      expect(r.type).toBe('error');
      return;
    }
    expect(r.type).toBe('value');
    if (r.type === 'value') expect(actual(r.value)).toEqual(expected(o.value ?? {}));
  });
});
