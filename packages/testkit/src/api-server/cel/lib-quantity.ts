/**
 * Kubernetes' CEL quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go):
 * `quantity(s)`, `isQuantity(s)`, and on a quantity `isInteger()`, `asInteger()`,
 * `asApproximateFloat()`, `sign()`, `add(q|int)`, `sub(q|int)`, `isGreaterThan(q)`,
 * `isLessThan(q)`, `compareTo(q)`. Values are exact (a big integer times a power of ten).
 */
import { celFunc, celMethod, CelScalar, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { fail, noOverload, opaque, payloadOf } from './opaque.js';

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

/** `mantissa × 10^exponent`. */
interface Quantity {
  readonly mantissa: bigint;
  readonly exponent: number;
}

const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** Parses a Kubernetes quantity string; undefined when it is not one. */
export function parseQuantity(s: string): Quantity | undefined {
  const m = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/.exec(s);
  if (m === null) return undefined;
  const [, sign = '', num = '', suffix = ''] = m;
  const [int = '', frac = ''] = num.split('.');
  let mantissa = BigInt(`${int}${frac}` === '' ? '0' : `${int}${frac}`);
  let exponent = -frac.length;
  if (BINARY[suffix] !== undefined) mantissa *= 1n << BigInt(BINARY[suffix]);
  else if (DECIMAL[suffix] !== undefined) exponent += DECIMAL[suffix];
  else if (suffix !== '') {
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 1000) return undefined;
    exponent += e;
  }
  return normalize({ mantissa: sign === '-' ? -mantissa : mantissa, exponent });
}

function normalize(q: Quantity): Quantity {
  if (q.mantissa === 0n) return { mantissa: 0n, exponent: 0 };
  let { mantissa, exponent } = q;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  return { mantissa, exponent };
}

function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const e = Math.min(a.exponent, b.exponent);
  return [a.mantissa * 10n ** BigInt(a.exponent - e), b.mantissa * 10n ** BigInt(b.exponent - e), e];
}

function compare(a: Quantity, b: Quantity): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function value(q: Quantity): CelMap {
  return opaque('quantity', q, `${q.mantissa}e${q.exponent}`);
}

function quantityArg(v: CelValue): Quantity | undefined {
  if (typeof v === 'bigint') return normalize({ mantissa: v, exponent: 0 });
  return payloadOf<Quantity>(v, 'quantity');
}

function method(name: string, args: readonly (typeof CelScalar.DYN)[], fn: (q: Quantity, ...a: CelValue[]) => CelValue | Error) {
  return celMethod(name, MAP, args, CelScalar.DYN, function (this: CelMap, ...a: CelValue[]) {
    const q = payloadOf<Quantity>(this, 'quantity');
    if (q === undefined) return noOverload(name);
    const r = fn(q, ...a);
    return r instanceof Error ? fail(r.message) : r;
  });
}

function binary(name: string, fn: (a: Quantity, b: Quantity) => CelValue) {
  return method(name, [CelScalar.DYN], (q, other) => {
    const o = quantityArg(other as CelValue);
    return o === undefined ? noOverload(name) : fn(q, o);
  });
}

const INT64_MAX = 9223372036854775807n;

/** The quantity functions. */
export const QUANTITY_FUNCS: readonly CelFunc[] = [
  celFunc('quantity', [CelScalar.STRING], CelScalar.DYN, (s: string) => {
    const q = parseQuantity(s);
    return q === undefined ? fail('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'') : value(q);
  }),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseQuantity(s) !== undefined),
  method('isInteger', [], (q) => q.exponent >= 0 && q.mantissa * 10n ** BigInt(q.exponent) <= INT64_MAX && q.mantissa * 10n ** BigInt(q.exponent) >= -INT64_MAX - 1n),
  method('asInteger', [], (q) => {
    if (q.exponent < 0) return new Error('cannot convert value to integer');
    const v = q.mantissa * 10n ** BigInt(q.exponent);
    return v > INT64_MAX || v < -INT64_MAX - 1n ? new Error('cannot convert value to integer') : v;
  }),
  method('asApproximateFloat', [], (q) => Number(q.mantissa) * 10 ** q.exponent),
  method('sign', [], (q) => BigInt(q.mantissa > 0n ? 1 : q.mantissa < 0n ? -1 : 0)),
  binary('add', (a, b) => {
    const [x, y, e] = align(a, b);
    return value(normalize({ mantissa: x + y, exponent: e }));
  }),
  binary('sub', (a, b) => {
    const [x, y, e] = align(a, b);
    return value(normalize({ mantissa: x - y, exponent: e }));
  }),
  binary('isGreaterThan', (a, b) => compare(a, b) > 0),
  binary('isLessThan', (a, b) => compare(a, b) < 0),
  binary('compareTo', (a, b) => BigInt(compare(a, b))),
];
