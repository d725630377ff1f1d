/**
 * Values of the Kubernetes CEL libraries that have no CEL type of their own here (optionals,
 * quantities, URLs, IPs, CIDRs): each is a CEL map holding one canonical key (so that `==`
 * compares them by value), remembered with its payload; the libraries' methods find the payload
 * again. A map that is not such a value answers as an error from those methods.
 */
import { celMap, type CelMap, type CelValue } from '@bufbuild/cel';

/** The kinds of library values. */
export type OpaqueKind = 'optional' | 'quantity' | 'url' | 'ip' | 'cidr';

interface Payload {
  readonly kind: OpaqueKind;
  readonly data: unknown;
}

const PAYLOADS = new WeakMap<object, Payload>();

/** A new library value of `kind`; `key` is what equality compares. */
export function opaque(kind: OpaqueKind, data: unknown, key: CelValue | undefined): CelMap {
  const m = celMap(new Map<string, CelValue>(key === undefined ? [] : [[`@${kind}`, key]]));
  PAYLOADS.set(m, { kind, data });
  return m;
}

/** The payload of a library value of `kind`, or undefined. */
export function payloadOf<T>(v: unknown, kind: OpaqueKind): T | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const p = PAYLOADS.get(v);
  return p?.kind === kind ? (p.data as T) : undefined;
}

/** Fails the running function: the evaluator turns the exception into a CEL error value. */
export function fail(message: string): never {
  throw new Error(message);
}

/** Fails a library method called on the wrong kind of value. */
export function noOverload(name: string): never {
  return fail(`no such overload: ${name}`);
}
