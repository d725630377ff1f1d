import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/index.js';
import { DeltaQueue } from '../../src/cache/delta-queue.js';
import { type FifoInput } from '../../src/cache/fifo-op.js';
import { Indexer } from '../../src/cache/indexer.js';

const pod = (name: string, rv: string): KubeObject => ({ metadata: { name, resourceVersion: rv } });
const names = ['a', 'b', 'c'];
const opArb: fc.Arbitrary<FifoInput | 'pop'> = fc.oneof(
  fc.constant('pop' as const),
  fc.record({ type: fc.constantFrom('add', 'update', 'delete'), object: fc.constantFrom(...names).map((n) => pod(n, n)) }) as fc.Arbitrary<FifoInput>,
  fc.record({ type: fc.constant('delete'), object: fc.constantFrom(...names).map((n) => new DeletedFinalStateUnknown(n, null)) }) as fc.Arbitrary<FifoInput>,
  fc.subarray(names).map((keep): FifoInput => ({ type: 'replace', items: keep.map((n) => pod(n, 'r')) })),
  fc.constant<FifoInput>({ type: 'resync' }),
);

describe('DeltaQueue invariants (§1.1)', () => {
  it('queue order has no duplicates, matches the keys with deltas, every entry non-empty, never two trailing Deleted', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const indexer = new Indexer({ freeze: 'none' });
        const q = new DeltaQueue({ knownObjects: indexer, onError: () => undefined });
        for (const op of ops) {
          if (op === 'pop') {
            const p = q.pop();
            if (p) {
              for (const d of p.deltas) {
                if (d.type === 'Deleted') indexer.delete(d.object);
                else indexer.upsert(d.object as KubeObject);
              }
              q.processed(p);
            }
          } else {
            q.apply(op);
          }
          const keys = q.listKeys();
          expect(new Set(keys).size).toBe(keys.length);
          expect(q.length).toBe(keys.length);
          for (const k of names) {
            const deltas = q.getDeltas(k);
            expect(deltas !== undefined).toBe(keys.includes(k));
            if (deltas) {
              expect(deltas.length).toBeGreaterThan(0);
              for (let i = 1; i < deltas.length; i++) {
                expect(deltas[i - 1]?.type === 'Deleted' && deltas[i]?.type === 'Deleted').toBe(false);
              }
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
  it('keeps working after many pops (queue compaction)', () => {
    const q = new DeltaQueue();
    for (let i = 0; i < 5000; i++) q.apply({ type: 'add', object: pod(`p${i}`, '1') });
    const popped: string[] = [];
    for (let i = 0; i < 3000; i++) popped.push(q.pop()?.key ?? '');
    for (let i = 0; i < 10; i++) q.apply({ type: 'add', object: pod(`n${i}`, '1') });
    expect(popped.slice(0, 2)).toEqual(['p0', 'p1']);
    expect(q.length).toBe(2010);
    const rest: string[] = [];
    for (let p = q.pop(); p; p = q.pop()) rest.push(p.key);
    expect(rest[0]).toBe('p3000');
    expect(rest.at(-1)).toBe('n9');
    expect(rest).toHaveLength(2010);
  });
});
