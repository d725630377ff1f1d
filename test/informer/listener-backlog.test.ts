import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { ListenerBacklog } from '../../src/informer/listener-backlog.js';
import { brief, obj } from './helpers.js';

const add = (name: string, rv: string, initial = false): InformerEvent => ({ type: 'add', object: obj(name, rv), isInInitialList: initial });
const upd = (old: KubeObject, object: KubeObject, resync = false): InformerEvent => ({ type: 'update', old, object, resync });
const del = (name: string, rv: string): InformerEvent => ({ type: 'delete', object: obj(name, rv) });

function drain(b: ListenerBacklog): string[] {
  const out: string[] = [];
  for (let e = b.shift(); e !== undefined; e = b.shift()) out.push(brief(e));
  return out;
}

describe('ListenerBacklog', () => {
  it('coalesces per key: add+update → add, update+update → update from the first old, keeps order of first arrival', () => {
    const b = new ListenerBacklog();
    b.push('ns/a', add('a', '1', true));
    b.push('ns/b', upd(obj('b', '1'), obj('b', '2')));
    b.push('ns/a', upd(obj('a', '1'), obj('a', '3')));
    b.push('ns/b', upd(obj('b', '2'), obj('b', '4')));
    expect(b.size).toBe(2);
    expect(b.pendingInitial).toBe(1);
    expect(drain(b)).toEqual(['add a@3*', 'update b@1>b@4']);
    expect(b.pendingInitial).toBe(0);
  });

  it('a merged update is a resync only if every part was', () => {
    const b = new ListenerBacklog();
    b.push('ns/a', upd(obj('a', '1'), obj('a', '1'), true));
    b.push('ns/a', upd(obj('a', '1'), obj('a', '2'), false));
    expect(drain(b)).toEqual(['update a@1>a@2']);
    b.push('ns/a', upd(obj('a', '2'), obj('a', '2'), true));
    b.push('ns/a', upd(obj('a', '2'), obj('a', '2'), true));
    expect(drain(b)).toEqual(['resync a@2']);
  });

  it('deletes are kept: update+delete → delete; delete+add+update → delete then add (latest)', () => {
    const b = new ListenerBacklog();
    b.push('ns/a', upd(obj('a', '1'), obj('a', '2')));
    b.push('ns/a', del('a', '3'));
    b.push('ns/a', add('a', '4'));
    b.push('ns/a', upd(obj('a', '4'), obj('a', '5')));
    expect(b.size).toBe(2);
    expect(drain(b)).toEqual(['delete a@3', 'add a@5']);
  });

  it('an undelivered add and its delete cancel out (also for the SI-11 counter); an earlier delete stays', () => {
    const b = new ListenerBacklog();
    b.push('ns/a', add('a', '1', true));
    b.push('ns/a', del('a', '2'));
    expect(b.pendingInitial).toBe(0);
    expect(b.size).toBe(0);
    expect(b.keys).toBe(0);
    expect(drain(b)).toEqual([]);
    b.push('ns/b', del('b', '3'));
    b.push('ns/b', add('b', '4'));
    b.push('ns/b', del('b', '5'));
    expect(drain(b)).toEqual(['delete b@3']);
  });

  it('property: a consumer draining at random points ends in the true state, sees no impossible transition, and the backlog never exceeds 2 per key', () => {
    const keys = ['a', 'b', 'c', 'd'];
    const step = fc.record({ key: fc.constantFrom(...keys), kind: fc.constantFrom('write', 'delete'), drain: fc.nat(3) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const truth = new Map<string, KubeObject>();
        const seen = new Map<string, string>();
        const anomalies: string[] = [];
        const b = new ListenerBacklog();
        let rv = 0;
        const consume = (n: number) => {
          for (let i = 0; i < n; i++) {
            const e = b.shift();
            if (e === undefined) return;
            const name = e.type === 'delete' ? ((e.object as KubeObject).metadata?.name ?? '') : (e.object.metadata?.name ?? '');
            if (e.type === 'add') {
              if (seen.has(name)) anomalies.push(`add over existing ${name}`);
              seen.set(name, e.object.metadata?.resourceVersion ?? '');
            } else if (e.type === 'update') {
              if (seen.get(name) !== e.old.metadata?.resourceVersion) anomalies.push(`update from unseen ${name}`);
              seen.set(name, e.object.metadata?.resourceVersion ?? '');
            } else if (!seen.delete(name)) anomalies.push(`delete of unseen ${name}`);
          }
        };
        for (const s of steps) {
          const key = `ns/${s.key}`;
          const old = truth.get(key);
          if (s.kind === 'write') {
            const o = obj(s.key, String(++rv));
            truth.set(key, o);
            b.push(key, old === undefined ? add(s.key, String(rv)) : upd(old, o));
          } else if (old !== undefined) {
            truth.delete(key);
            b.push(key, del(s.key, String(++rv)));
          }
          if (b.size > 2 * b.keys || b.keys > keys.length) anomalies.push('backlog too large');
          consume(s.drain);
        }
        consume(Number.MAX_SAFE_INTEGER);
        expect(anomalies).toEqual([]);
        expect(new Map([...seen].sort())).toEqual(
          new Map([...truth].map(([k, o]) => [k.slice(3), o.metadata?.resourceVersion ?? ''] as const).sort()),
        );
      }),
      { numRuns: 300 },
    );
  });
});
