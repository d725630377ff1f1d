import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inProcessCluster, startApiServer } from '@rxkube/testkit';
import { sameJson, sameJsonIgnoringKeyOrder } from '../src/api-server/json-equal.js';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: 'a' } },
  spec: { containers: [{ name: 'c', image: 'busybox:1', ports: [{ containerPort: 80 }] }] },
});

describe('embedded API server: the write path', () => {
  it('compares JSON without serializing exactly as JSON.stringify would', () => {
    const value = fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, Number.NaN, -0, Infinity, new Date(0), () => 1));
    const shaped = fc.oneof(value, fc.dictionary(fc.constantFrom('a', 'b', 'c', '1'), value), fc.array(value, { maxLength: 3 }));
    fc.assert(
      fc.property(shaped, shaped, (a, b) => {
        expect(sameJson(a, b)).toBe((JSON.stringify(a) ?? 'null') === (JSON.stringify(b) ?? 'null'));
        expect(sameJson(a, structuredCloneOrSelf(a))).toBe(true);
      }),
    );
    // Key order counts, as in the JSON text.
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });

  it('compares JSON data ignoring key order as the JSON text with sorted keys would', () => {
    const sorted = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sorted) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, x]) => [k, sorted(x)])) : v;
    const shaped = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c', '1'), fc.jsonValue({ maxDepth: 2 })));
    fc.assert(
      fc.property(shaped, shaped, (a, b) => {
        expect(sameJsonIgnoringKeyOrder(a, b)).toBe(JSON.stringify(sorted(a)) === JSON.stringify(sorted(b)));
        expect(sameJsonIgnoringKeyOrder(a, sorted(a))).toBe(true);
      }),
    );
    expect(sameJsonIgnoringKeyOrder({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(true);
    expect(sameJsonIgnoringKeyOrder({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJsonIgnoringKeyOrder({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJsonIgnoringKeyOrder({ a: 1 }, { a: 1, b: null })).toBe(false);
  });

  it('stores an update that changes a label with the spec shared with the version before', () => {
    const cluster = inProcessCluster();
    const first = cluster.create(pod('p'));
    const second = cluster.update({ ...first, metadata: { ...first.metadata, labels: { app: 'b' } } });
    expect(second.metadata?.labels).toEqual({ app: 'b' });
    expect(second['spec']).toEqual(first['spec']);
    expect(second['spec']).toBe(first['spec']);
    cluster.close();
  });

  it('still refuses an update that changes an immutable part of a pod spec, and still accepts an unchanged one', () => {
    const cluster = inProcessCluster();
    const first = cluster.create(pod('q'));
    const spec = first['spec'] as { containers: Array<Record<string, unknown>> };
    expect(() => cluster.update({ ...first, spec: { ...spec, containers: [{ ...spec.containers[0], name: 'renamed' }] } })).toThrow(/pod updates may not change fields/);
    const same = cluster.update({ ...first, spec: structuredClone(spec) });
    expect(same.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion); // a no-op keeps the version
    cluster.close();
  });

  it('generates the TLS material of embedded servers once per process', async () => {
    const a = await startApiServer({ tls: true });
    const b = await startApiServer({ tls: true });
    try {
      expect(a.caPem).toBeDefined();
      expect(b.caPem).toBe(a.caPem);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

function structuredCloneOrSelf(v: unknown): unknown {
  try {
    return structuredClone(v);
  } catch {
    return v; // functions cannot be cloned
  }
}
