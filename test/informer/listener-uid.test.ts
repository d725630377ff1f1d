// UID-exact slow subscribers: a subscriber always learns that an object it knew is gone, and is
// never told of a delete naming a UID it was never given, whatever the backlog coalesced.
import fc from 'fast-check';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { gated } from './helpers.js';

const pod = (name: string, uid: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', uid, resourceVersion: rv } });
const ident = (o: KubeObject | DeletedFinalStateUnknown): string => {
  const x = o instanceof DeletedFinalStateUnknown ? o.object : o;
  return `${x?.metadata?.name ?? '?'}@${x?.metadata?.uid ?? '?'}`;
};
const brief = (e: InformerEvent): string =>
  e.type === 'update' ? `update ${ident(e.old)}>${ident(e.object)}` : `${e.type} ${ident(e.object)}`;

describe('UID-exact delivery to a slow subscriber', () => {
  it('relist with a recreated object, then its delete: the subscriber gets a delete of the UID it knew, nothing of the new UID', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const seen: string[] = [];
    const gate = gated((e) => seen.push(brief(e)));
    informer.listen({ process: gate.process }).events$.subscribe();
    src.next({ type: 'replace', items: [pod('a', 'uid-1', '1')], resourceVersion: '1' });
    // the subscriber is busy with `add a@uid-1` while the rest arrives
    src.next({ type: 'replace', items: [pod('a', 'uid-2', '5')], resourceVersion: '5' });
    src.next({ type: 'deleted', object: pod('a', 'uid-2', '6') });
    for (let i = 0; i < 5; i++) gate.finishOne();
    expect(seen).toEqual(['add a@uid-1', 'delete a@uid-1']);
  });

  it('property: random writes, recreations, deletes and relists, drained at random points; replay matches the cache by key and UID', () => {
    const names = ['a', 'b'];
    // weighted towards the interesting case: recreations during outages, seen through a relist
    const op = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('write' as const), name: fc.constantFrom(...names) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('recreate' as const), name: fc.constantFrom(...names) }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...names) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('relist' as const) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('outage' as const) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('drain' as const), n: fc.nat(2) }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        let watchDown = false; // while down, changes reach the informer only through the next relist
        const src = new Subject<ReflectorEvent>();
        const informer = sharedInformer(src);
        const view = new Map<string, string>(); // name → uid the subscriber believes exists
        const anomalies: string[] = [];
        const gate = gated((e) => {
          const name = (e.type === 'delete' && e.object instanceof DeletedFinalStateUnknown ? e.object.object : (e.object as KubeObject))?.metadata?.name ?? '?';
          const uid = (o: KubeObject | DeletedFinalStateUnknown) => (o instanceof DeletedFinalStateUnknown ? o.object : o)?.metadata?.uid;
          if (e.type === 'add') {
            if (view.has(name)) anomalies.push(`add over known ${name}`);
            view.set(name, uid(e.object) ?? '');
          } else if (e.type === 'update') {
            if (view.get(name) !== uid(e.old)) anomalies.push(`update from ${uid(e.old)} but knew ${view.get(name)}`);
            view.set(name, uid(e.object) ?? '');
          } else {
            if (view.get(name) !== uid(e.object)) anomalies.push(`delete of ${uid(e.object)} but knew ${view.get(name)}`);
            view.delete(name);
          }
        });
        informer.listen({ process: gate.process }).events$.subscribe();
        const server = new Map<string, KubeObject>();
        let rv = 0;
        let uids = 0;
        src.next({ type: 'replace', items: [], resourceVersion: '0' });
        for (const o of ops) {
          if (o.kind === 'drain') {
            for (let i = 0; i < o.n; i++) gate.finishOne();
            continue;
          }
          if (o.kind === 'outage') {
            watchDown = true;
            continue;
          }
          if (o.kind === 'relist') {
            watchDown = false;
            src.next({ type: 'replace', items: [...server.values()], resourceVersion: String(rv) });
            continue;
          }
          const cur = server.get(o.name);
          if (o.kind === 'delete') {
            if (cur === undefined) continue;
            server.delete(o.name);
            const gone = pod(o.name, cur.metadata?.uid ?? '', String(++rv));
            if (!watchDown) src.next({ type: 'deleted', object: gone });
          } else {
            const uid = o.kind === 'recreate' || cur === undefined ? `u${++uids}` : (cur.metadata?.uid ?? '');
            const next = pod(o.name, uid, String(++rv));
            server.set(o.name, next);
            if (watchDown) continue;
            if (cur !== undefined && o.kind === 'recreate') {
              // a recreation seen live is a delete and an add
              src.next({ type: 'deleted', object: pod(o.name, cur.metadata?.uid ?? '', String(rv)) });
              src.next({ type: 'added', object: next });
            } else {
              src.next({ type: cur === undefined ? 'added' : 'modified', object: next });
            }
          }
        }
        src.next({ type: 'replace', items: [...server.values()], resourceVersion: String(rv) });
        for (let i = 0; i < 10_000 && anomalies.length === 0; i++) gate.finishOne();
        expect(anomalies).toEqual([]);
        expect(new Map([...view].sort())).toEqual(new Map([...server].map(([n, o]) => [n, o.metadata?.uid ?? ''] as const).sort()));
      }),
      { numRuns: 500 },
    );
  });
});
