import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashKey, PersistentMap, PersistentMapBuilder } from '../../src/cache/persistent-map.js';

/** Two distinct keys with the same 32-bit hash (found by a birthday search, cached for the file). */
const collision: [string, string] = (() => {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const k = `ns/pod-${i}`;
    const h = hashKey(k);
    const other = seen.get(h);
    if (other !== undefined) return [other, k];
    seen.set(h, k);
  }
})();

type Op = { kind: 'set'; key: string; value: number } | { kind: 'delete'; key: string } | { kind: 'build' };

const keyArb = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map((i) => `ns/k${i}`),
  fc.constantFrom(...collision, `${collision[0]}x`),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key: keyArb, value: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: keyArb }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'build' as const }) },
);

const sorted = <V>(m: ReadonlyMap<string, V>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('PersistentMap', () => {
  it('the collision pair really collides (so the collision paths below are exercised)', () => {
    expect(collision[0]).not.toBe(collision[1]);
    expect(hashKey(collision[0])).toBe(hashKey(collision[1]));
  });

  it('behaves like a Map under set/delete, and every built version stays as it was', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 400 }), (ops) => {
        const model = new Map<string, number>();
        let persistent = PersistentMap.empty<number>();
        const builder = new PersistentMapBuilder<number>();
        const versions: Array<[PersistentMap<number>, Array<[string, number]>]> = [];
        for (const op of ops) {
          if (op.kind === 'set') {
            model.set(op.key, op.value);
            persistent = persistent.set(op.key, op.value);
            builder.set(op.key, op.value);
          } else if (op.kind === 'delete') {
            model.delete(op.key);
            persistent = persistent.delete(op.key);
            builder.delete(op.key);
          } else {
            versions.push([builder.build(), sorted(model)]);
          }
          expect(persistent.size).toBe(model.size);
          expect(builder.size).toBe(model.size);
        }
        const built = builder.build();
        expect(sorted(persistent)).toEqual(sorted(model));
        expect(sorted(built)).toEqual(sorted(model));
        for (const [k, v] of model) {
          expect(persistent.get(k)).toBe(v);
          expect(built.has(k)).toBe(true);
        }
        expect(persistent.get('absent')).toBeUndefined();
        // Older versions were not touched by later in-place writes of the builder.
        for (const [version, content] of versions) expect(sorted(version)).toEqual(content);
      }),
      { numRuns: 200 },
    );
  });

  it('diff between two versions lists exactly the changed keys, structurally or against a plain Map', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), fc.array(opArb, { maxLength: 60 }), (first, second) => {
        const builder = new PersistentMapBuilder<number>();
        const apply = (ops: Op[]) => {
          for (const op of ops) {
            if (op.kind === 'set') builder.set(op.key, op.value);
            else if (op.kind === 'delete') builder.delete(op.key);
          }
        };
        apply(first);
        const before = builder.build();
        const beforeModel = new Map(before);
        apply(second);
        const after = builder.build();
        const expected: Array<[string, number | undefined, number | undefined]> = [];
        for (const k of new Set([...beforeModel.keys(), ...after.keys()])) {
          const a = beforeModel.get(k);
          const b = after.get(k);
          if (a !== b) expected.push([k, a, b]);
        }
        const norm = (cs: ReturnType<typeof after.diff>) =>
          cs.map((c): [string, number | undefined, number | undefined] => [c.key, c.before, c.after]).sort();
        expect(norm(after.diff(before))).toEqual(expected.sort());
        expect(norm(after.diff(beforeModel))).toEqual(expected.sort());
      }),
      { numRuns: 200 },
    );
  });

  it('set of an equal value and delete of an absent key return the same map; build without changes too', () => {
    const m = PersistentMap.from<number>([['a', 1], ['b', 2]]);
    expect(m.set('a', 1)).toBe(m);
    expect(m.delete('zz')).toBe(m);
    const b = m.toBuilder();
    expect(b.build()).toBe(m);
    b.set('a', 1);
    expect(b.changed).toBe(false);
    b.set('a', 3);
    expect(b.changed).toBe(true);
    const m2 = b.build();
    expect(m2).not.toBe(m);
    expect(b.build()).toBe(m2);
    expect(m.get('a')).toBe(1);
    expect(m2.get('a')).toBe(3);
  });

  it('is a ReadonlyMap: forEach, keys, values, entries, spread', () => {
    const m = PersistentMap.from<number>([['x', 1], ['y', 2]]);
    const seen: string[] = [];
    m.forEach((v, k, self) => {
      expect(self).toBe(m);
      seen.push(`${k}=${v}`);
    });
    expect(seen.sort()).toEqual(['x=1', 'y=2']);
    expect([...m.keys()].sort()).toEqual(['x', 'y']);
    expect([...m.values()].sort()).toEqual([1, 2]);
    expect(new Map(m).get('y')).toBe(2);
    expect(Object.isFrozen(m)).toBe(true);
  });
});
