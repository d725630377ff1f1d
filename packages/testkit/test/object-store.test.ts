import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ObjectStore } from '../src/api-server/object-store.js';
import { StatusError } from '../src/api-server/status-error.js';

type Op = { kind: 'put'; key: string; v: number } | { kind: 'remove'; key: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: fc.constantFrom('a', 'b', 'ns/c', 'ns/d', 'z'), v: fc.integer() }),
  fc.record({ kind: fc.constant('remove' as const), key: fc.constantFrom('a', 'b', 'ns/c', 'ns/d', 'z') }),
);

describe('ObjectStore', () => {
  it('snapshot(rv) is the state as of rv, for every retained rv (model-based)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 5, max: 80 }), (ops, window) => {
        const store = new ObjectStore(window);
        const model = new Map<string, number>();
        const states = new Map<number, string>([[store.resourceVersion, '[]']]);
        for (const o of ops) {
          if (o.kind === 'put') {
            store.put('/things', o.key, { metadata: { name: o.key }, v: o.v });
            model.set(o.key, o.v);
          } else {
            store.remove('/things', o.key);
            model.delete(o.key);
          }
          states.set(store.resourceVersion, JSON.stringify([...model.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))));
        }
        for (const [rv, state] of states) {
          if (rv < store.oldestRetainedRv) {
            expect(() => store.snapshot('/things', rv)).toThrow(StatusError);
            continue;
          }
          const snap = store.snapshot('/things', rv).map((e) => [e.key, e.object['v']]);
          expect(JSON.stringify(snap)).toBe(state);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('one counter across resources; events since a version; 410 after compaction', () => {
    const store = new ObjectStore(100);
    const seen: string[] = [];
    store.onEvent((e) => seen.push(`${e.type}:${e.resourceId}:${e.entry.key}:${e.rv}`));
    const a = store.put('/pods', 'ns/a', { metadata: { name: 'a' } });
    const b = store.put('apps/deployments', 'ns/b', { metadata: { name: 'b' } });
    store.put('/pods', 'ns/a', { metadata: { name: 'a' }, x: 1 });
    store.remove('/pods', 'ns/a');
    expect(b.rv).toBe(a.rv + 1);
    expect(seen).toEqual([`ADDED:/pods:ns/a:${a.rv}`, `ADDED:apps/deployments:ns/b:${a.rv + 1}`, `MODIFIED:/pods:ns/a:${a.rv + 2}`, `DELETED:/pods:ns/a:${a.rv + 3}`]);
    expect(store.eventsSince('/pods', a.rv).map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    expect(JSON.parse(store.eventsSince('/pods', a.rv)[1]?.entry.json ?? '{}')).toMatchObject({ x: 1, metadata: { resourceVersion: String(a.rv + 3) } });
    store.compact();
    try {
      store.eventsSince('/pods', a.rv);
      expect.unreachable();
    } catch (e) {
      expect((e as StatusError).status).toMatchObject({ code: 410, reason: 'Expired' });
    }
    expect(store.eventsSince('/pods', store.resourceVersion)).toEqual([]);
  });

  it('serializes each version once and reuses the string', () => {
    const store = new ObjectStore(10);
    const e = store.put('/cm', 'x', { metadata: { name: 'x' } });
    expect(store.get('/cm', 'x')?.json).toBe(e.json);
    expect(store.snapshot('/cm')[0]?.json).toBe(e.json);
  });
});
