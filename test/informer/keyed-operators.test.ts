import { finalize, map, NEVER, type Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { Joined } from '../../src/informer/join.js';
import {
  collectByKey,
  distinctByKey,
  type KeyedChange,
  mapByKey,
  scanByKey,
  switchMapByKey,
} from '../../src/informer/keyed-operators.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { startApiServer } from '../../packages/testkit/src/api-server/start-api-server.js';
import { marbles } from '../helpers/marbles.js';
import { obj } from './helpers.js';

const put = <V>(key: string, value: V): KeyedChange<V> => ({ key, deleted: false, value });
const gone = (key: string): KeyedChange<never> => ({ key, deleted: true });

describe('keyed operators', () => {
  it(
    'mapByKey: per-key map; a deletion is emitted once and the key forgotten (marble of its doc)',
    marbles((m) => {
      const input = m.cold('-a-b-c-x-x-d-|', { a: put('a', 1), b: put('b', 1), c: put('a', 2), x: gone('a'), d: put('b', 2) });
      m.expect(input.pipe(mapByKey((v: number) => v * 10))).toBeObservable('-A-B-C-X---D-|', {
        A: put('a', 10),
        B: put('b', 10),
        C: put('a', 20),
        X: gone('a'),
        D: put('b', 20),
      });
    }),
  );

  it(
    'distinctByKey: drops a value equal to its key\'s last one; after a deletion the key is new again',
    marbles((m) => {
      const input = m.cold('-a-b-a-c-x-c-|', { a: put('a', 1), b: put('b', 1), c: put('a', 2), x: gone('a') });
      m.expect(input.pipe(distinctByKey())).toBeObservable('-a-b---c-x-c-|', { a: put('a', 1), b: put('b', 1), c: put('a', 2), x: gone('a') });
    }),
  );

  it(
    'distinctByKey with a comparer (e.g. by generation)',
    marbles((m) => {
      const g = (gen: number, rv: string) => ({ metadata: { name: 'd', namespace: 'ns', generation: gen, resourceVersion: rv } });
      const e = (o: KubeObject): InformerEvent => ({ type: 'update', old: o, object: o, resync: false });
      const input = m.cold('-a-b-c-|', { a: e(g(1, '1')), b: e(g(1, '2')), c: e(g(2, '3')) });
      const out = input.pipe(
        distinctByKey((p, c) => p.metadata?.generation === c.metadata?.generation),
        map((ch) => (ch.deleted ? 'x' : ch.value.metadata?.resourceVersion)),
      );
      m.expect(out).toBeObservable('-1---3-|', { 1: '1', 3: '3' });
    }),
  );

  it(
    'scanByKey: one accumulator per key, dropped on deletion (marble of its doc)',
    marbles((m) => {
      const input = m.cold('-a-b-c-x-a-|', { a: put('a', 1), b: put('b', 5), c: put('a', 2), x: gone('a') });
      m.expect(input.pipe(scanByKey((sum: number, v: number) => sum + v, 0))).toBeObservable('-A-B-C-X-A-|', {
        A: put('a', 1),
        B: put('b', 5),
        C: put('a', 3),
        X: gone('a'),
      });
    }),
  );

  it(
    'switchMapByKey: a new value of a key switches that key only; a deletion unsubscribes its inner (marble of its doc)',
    marbles((m) => {
      const input = m.hot('-a-c--bx------|', { a: put('a', 1), c: put('a', 2), b: put('b', 1), x: gone('a') });
      const inners: Record<string, ReturnType<typeof m.cold>> = {};
      const out = input.pipe(
        switchMapByKey((v: number, key) => {
          const inner = m.cold(key === 'a' ? '-p-q-r|' : '--p---q|', { p: `${key}${v}p`, q: `${key}${v}q`, r: `${key}${v}r` });
          inners[`${key}${v}`] = inner;
          return inner;
        }),
        map((ch) => (ch.deleted ? `${ch.key}✕` : ch.value)),
      );
      m.expect(out).toBeObservable('--A-C-Dxb---e-|', { A: 'a1p', C: 'a2p', D: 'a2q', x: 'a✕', b: 'b1p', e: 'b1q' });
      m.flush();
      const frames = (name: string) => inners[name]?.subscriptions.map((s) => [s.subscribedFrame, s.unsubscribedFrame]);
      expect(frames('a1')).toEqual([[1, 3]]);
      expect(frames('a2')).toEqual([[3, 7]]);
      expect(frames('b1')).toEqual([[6, 13]]);
    }),
  );

  it(
    'switchMapByKey: completes only after the source and every inner completed; unsubscribing ends every inner',
    marbles((m) => {
      const input = m.hot('-a-b|', { a: put('a', 1), b: put('b', 1) });
      const innerA = m.cold('---1|');
      const innerB = m.cold('-----2-3|');
      const out = input.pipe(switchMapByKey((_v: number, key) => (key === 'a' ? innerA : innerB)), map((ch) => (ch.deleted ? 'x' : ch.value)));
      m.expect(out).toBeObservable('----1---2-3|');
      m.expect(innerB).toHaveSubscriptions('---^-------!');
      const input2 = m.hot('-a-b-----', { a: put('a', 1), b: put('b', 1) });
      const longA = m.cold('-1-1-1-1-1-1');
      const longB = m.cold('-2-2-2-2-2-2');
      const out2 = input2.pipe(
        switchMapByKey((_v: number, key) => (key === 'a' ? longA : longB)),
        map((ch) => (ch.deleted ? 'x' : ch.value)),
      );
      m.expect(out2, '^----!').toBeObservable('--1-(12)');
      m.expect(longA).toHaveSubscriptions('-^---!');
      m.expect(longB).toHaveSubscriptions('---^-!');
    }),
  );

  it(
    'collectByKey: the map of latest values, one immutable map per change (marble of its doc)',
    marbles((m) => {
      const input = m.cold('-a-b-c-x-y-|', { a: put('a', 1), b: put('b', 1), c: put('a', 2), x: gone('a'), y: gone('zz') });
      const out = input.pipe(
        collectByKey(),
        map((mp) => Object.fromEntries([...mp].sort())),
      );
      m.expect(out).toBeObservable('-A-B-C-X---|', { A: { a: 1 }, B: { a: 1, b: 1 }, C: { a: 2, b: 1 }, X: { b: 1 } });
    }),
  );

  it('informer events in: key = object key, a tombstone delete deletes, the value is the object', () => {
    const events = new Subject<InformerEvent>();
    const out: string[] = [];
    events.pipe(mapByKey((o) => o.metadata?.resourceVersion)).subscribe((c) => out.push(c.deleted ? `${c.key} deleted` : `${c.key}=${c.value}`));
    events.next({ type: 'add', object: obj('x', '1'), isInInitialList: true });
    events.next({ type: 'update', old: obj('x', '1'), object: obj('x', '2'), resync: false });
    events.next({ type: 'delete', object: new DeletedFinalStateUnknown('ns/x', null) });
    events.next({ type: 'delete', object: obj('y', '1') }); // never seen: dropped
    expect(out).toEqual(['ns/x=1', 'ns/x=2', 'ns/x deleted']);
  });

  it('join output in: key = left key, the value is the view, a view without left deletes', () => {
    const joined = new Subject<Joined<KubeObject, KubeObject>>();
    const out: string[] = [];
    joined.pipe(mapByKey((j) => j.right.length)).subscribe((c) => out.push(c.deleted ? `${c.key} deleted` : `${c.key}:${c.value}`));
    joined.next({ key: 'ns/d', left: obj('d', '1'), right: [obj('r1', '1')] });
    joined.next({ key: 'ns/d', left: obj('d', '1'), right: [obj('r1', '1'), obj('r2', '1')] });
    joined.next({ key: 'ns/d', left: undefined, right: [] });
    expect(out).toEqual(['ns/d:1', 'ns/d:2', 'ns/d deleted']);
  });

  it('forgets deleted keys: a long churn of keys keeps no per-key inner alive', () => {
    const events = new Subject<KeyedChange<number>>();
    let live = 0;
    const sub = events
      .pipe(
        switchMapByKey(() => {
          live++;
          return NEVER.pipe(finalize(() => live--));
        }),
      )
      .subscribe();
    for (let i = 0; i < 1000; i++) {
      events.next(put(`k${i}`, i));
      events.next(put(`k${i}`, i + 1));
      if (i % 10 !== 0) events.next(gone(`k${i}`));
    }
    expect(live).toBe(100);
    sub.unsubscribe();
    expect(live).toBe(0);
  });

  it('unsubscribing a keyed pipeline closes the informer\'s watch on the API server', async () => {
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    try {
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { n: '1' } });
      const cms = sharedInformer<KubeObject>({ client, resource: { apiVersion: 'v1', kind: 'ConfigMap' } });
      const seen: string[] = [];
      const out$: Observable<KeyedChange<string>> = cms.events$.pipe(
        distinctByKey((a, b) => a.metadata?.resourceVersion === b.metadata?.resourceVersion),
        switchMapByKey((cm) => [String((cm as { data?: { n?: string } }).data?.n)]),
        scanByKey((acc: string, n: string) => acc + n, ''),
      );
      const sub = out$.subscribe((c) => seen.push(c.deleted ? `${c.key} deleted` : `${c.key}=${c.value}`));
      // A streaming list (the default) opens the watch before its initial events arrive: wait for both.
      await waitFor(() => server.openWatches() === 1 && seen.length === 1);
      expect(server.requests.count({ watch: true })).toBe(1);
      sub.unsubscribe();
      await waitFor(() => server.openWatches() === 0);
      expect(cms.isRunning).toBe(false);
      expect(seen).toEqual(['default/a=1']);
    } finally {
      client.close();
      await server.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
