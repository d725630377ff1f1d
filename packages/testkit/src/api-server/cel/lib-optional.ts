/**
 * CEL optionals as far as transition rules with `optionalOldSelf: true` need them: `oldSelf` is
 * `optional.none()` on create and `optional.of(old)` on update; `hasValue()`, `value()`,
 * `orValue(x)`, `or(opt)`, `optional.of(x)`, `optional.none()`, `optional.ofNonZeroValue(x)`.
 * (The `.?field` and `[?key]` syntax is not parsed by the CEL library used here.)
 */
import { celFunc, celMethod, CelScalar, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { fail, noOverload, opaque, payloadOf } from './opaque.js';

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

interface Optional {
  readonly present: boolean;
  readonly value: CelValue | undefined;
}

/** `optional.of(v)`, or `optional.none()` when `v` is undefined. */
export function optionalOf(v: CelValue | undefined): CelMap {
  return opaque('optional', { present: v !== undefined, value: v } satisfies Optional, v === undefined ? undefined : v);
}

function zero(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  if (typeof v === 'object' && 'size' in v && typeof v.size === 'number') return v.size === 0;
  return false;
}

/** The optional functions. */
export const OPTIONAL_FUNCS: readonly CelFunc[] = [
  celFunc('optional.of', [CelScalar.DYN], CelScalar.DYN, (v: CelValue) => optionalOf(v)),
  celFunc('optional.none', [], CelScalar.DYN, () => optionalOf(undefined)),
  celFunc('optional.ofNonZeroValue', [CelScalar.DYN], CelScalar.DYN, (v: CelValue) => optionalOf(zero(v) ? undefined : v)),
  celMethod('hasValue', MAP, [], CelScalar.BOOL, function (this: CelMap) {
    const o = payloadOf<Optional>(this, 'optional');
    return o === undefined ? noOverload('hasValue') : o.present;
  }),
  celMethod('value', MAP, [], CelScalar.DYN, function (this: CelMap) {
    const o = payloadOf<Optional>(this, 'optional');
    if (o === undefined) return noOverload('value');
    return o.present ? (o.value as CelValue) : fail('optional.none() dereference');
  }),
  celMethod('orValue', MAP, [CelScalar.DYN], CelScalar.DYN, function (this: CelMap, other: CelValue) {
    const o = payloadOf<Optional>(this, 'optional');
    if (o === undefined) return noOverload('orValue');
    return o.present ? (o.value as CelValue) : other;
  }),
  celMethod('or', MAP, [MAP], CelScalar.DYN, function (this: CelMap, other: CelMap) {
    const o = payloadOf<Optional>(this, 'optional');
    if (o === undefined) return noOverload('or');
    return o.present ? this : other;
  }),
];
