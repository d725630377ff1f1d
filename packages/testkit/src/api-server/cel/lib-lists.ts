/**
 * Kubernetes' CEL list library (k8s.io/apiserver/pkg/cel/library/lists.go) and sets library:
 * `isSorted()`, `sum()`, `min()`, `max()`, `indexOf(x)`, `lastIndexOf(x)`,
 * `sets.contains`, `sets.equivalent`, `sets.intersects`.
 */
import { celFunc, celMethod, CelScalar, isCelUint, listType, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { chargeItems } from './cost.js';
import { fail } from './opaque.js';

const LIST = listType(CelScalar.DYN);

function num(v: CelValue): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

/** Order of two comparable CEL values (numbers across int/uint/double, strings, bools); undefined if not comparable. */
export function compareCel(a: CelValue, b: CelValue): number | undefined {
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) {
    if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
    const fx = Number(x);
    const fy = Number(y);
    return fx < fy ? -1 : fx > fy ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return undefined;
}

/** Equality of CEL values as `==` (deep for lists and maps, numbers across types). */
export function equalCel(a: CelValue, b: CelValue): boolean {
  const c = compareCel(a, b);
  if (c !== undefined) return c === 0;
  if (a === null || b === null) return a === b;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  const la = a as unknown as CelList;
  const lb = b as unknown as CelList;
  if (typeof la.size === 'number' && typeof (la as { get?: unknown }).get === 'function' && Symbol.iterator in la && !('has' in la)) {
    if (!('size' in lb) || 'has' in lb || la.size !== lb.size) return false;
    for (let i = 0; i < la.size; i++) if (!equalCel(la.get(i) as CelValue, lb.get(i) as CelValue)) return false;
    return true;
  }
  const ma = a as unknown as ReadonlyMap<unknown, CelValue>;
  const mb = b as unknown as ReadonlyMap<unknown, CelValue>;
  if (!('has' in ma) || !('has' in mb) || ma.size !== mb.size) return false;
  for (const [k, v] of ma) {
    if (!mb.has(k)) return false;
    if (!equalCel(v, mb.get(k) as CelValue)) return false;
  }
  return true;
}

function items(l: CelList): CelValue[] {
  chargeItems(l.size);
  return [...l];
}

function extreme(name: string, sign: number) {
  return celMethod(name, LIST, [], CelScalar.DYN, function (this: CelList) {
    const xs = items(this);
    if (xs.length === 0) return fail(`${name}(list) called on empty list`);
    let best = xs[0] as CelValue;
    for (const x of xs.slice(1)) {
      const c = compareCel(x, best);
      if (c === undefined) return fail(`no such overload: ${name}`);
      if (c * sign > 0) best = x;
    }
    return best;
  });
}

/** The list and sets functions. */
export const LIST_FUNCS: readonly CelFunc[] = [
  celMethod('isSorted', LIST, [], CelScalar.BOOL, function (this: CelList) {
    const xs = items(this);
    for (let i = 1; i < xs.length; i++) {
      const c = compareCel(xs[i - 1] as CelValue, xs[i] as CelValue);
      if (c === undefined) return fail('no such overload: isSorted');
      if (c > 0) return false;
    }
    return true;
  }),
  celMethod('sum', LIST, [], CelScalar.DYN, function (this: CelList) {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    if (xs.every((x) => typeof x === 'bigint')) {
      let s = 0n;
      for (const x of xs as bigint[]) s += x;
      if (s > 9223372036854775807n || s < -9223372036854775808n) return fail('integer overflow');
      return s;
    }
    if (xs.every((x) => typeof x === 'number')) return (xs as number[]).reduce((a, b) => a + b, 0);
    return fail('no such overload: sum');
  }),
  extreme('min', -1),
  extreme('max', 1),
  celMethod('indexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (this: CelList, x: CelValue) {
    const xs = items(this);
    return BigInt(xs.findIndex((y) => equalCel(y, x)));
  }),
  celMethod('lastIndexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (this: CelList, x: CelValue) {
    const xs = items(this);
    for (let i = xs.length - 1; i >= 0; i--) if (equalCel(xs[i] as CelValue, x)) return BigInt(i);
    return -1n;
  }),
  celFunc('sets.contains', [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) => {
    const xs = items(a);
    return items(b).every((y) => xs.some((x) => equalCel(x, y)));
  }),
  celFunc('sets.equivalent', [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) => {
    const xs = items(a);
    const ys = items(b);
    return ys.every((y) => xs.some((x) => equalCel(x, y))) && xs.every((x) => ys.some((y) => equalCel(x, y)));
  }),
  celFunc('sets.intersects', [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) => {
    const xs = items(a);
    return items(b).some((y) => xs.some((x) => equalCel(x, y)));
  }),
];
