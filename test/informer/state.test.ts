import { combineLatest, defer, finalize, map, Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { CacheSnapshot } from '../../src/informer/state.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { marbles } from '../helpers/marbles.js';
import { added, deleted, modified, obj, replace } from './helpers.js';

/** A snapshot as text: `x@1,y@2` (keys sorted). */
const show = (s: ReadonlyMap<string, KubeObject>) =>
  [...s.values()]
    .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
    .sort()
    .join(',');

describe('informer.state$', () => {
  it(
    'nothing before sync, then the whole cache, then one snapshot per tick of changes',
    marbles((m) => {
      const source = m.hot('---r--b---(cd)--e', {
        r: replace('1', obj('x', '1'), obj('y', '1')),
        b: added(obj('z', '2')),
        c: modified(obj('x', '3')),
        d: deleted(obj('y', '4')),
        e: modified(obj('z', '2')), // same resourceVersion: no change of content, no snapshot
      });
      const informer = sharedInformer(source, { transform: null });
      m.expect(informer.state$.pipe(map(show))).toBeObservable('---S--T---U------', {
        S: 'x@1,y@1',
        T: 'x@1,y@1,z@2',
        U: 'x@3,z@2',
      });
    }),
  );

  it(
    'a late subscriber gets the latest snapshot at once; all share one listener registration',
    marbles((m) => {
      const source = m.hot('-r---a---', { r: replace('1', obj('x', '1')), a: added(obj('y', '2')) });
      const informer = sharedInformer(source);
      m.expect(informer.state$.pipe(map(show)), '^--------').toBeObservable('-S---T---', { S: 'x@1', T: 'x@1,y@2' });
      m.expect(informer.state$.pipe(map(show)), '---^-----').toBeObservable('---S-T---', { S: 'x@1', T: 'x@1,y@2' });
      m.expect(informer.state$.pipe(map(show)), '-------^-').toBeObservable('-------T-', { T: 'x@1,y@2' });
    }),
  );

  it(
    'batchMs gathers changes over a window of the informer scheduler',
    marbles((m) => {
      const source = m.hot('-r-a-b-c------', {
        r: replace('1'),
        a: added(obj('a', '1')),
        b: added(obj('b', '1')),
        c: added(obj('c', '1')),
      });
      const informer = sharedInformer(source, { stateBatchMs: 4 });
      // a starts a window at 3 that ends at 7 (with a, b, c); the list itself is emitted at sync.
      m.expect(informer.state$.pipe(map(show))).toBeObservable('-S-----T------', { S: '', T: 'a@1,b@1,c@1' });
    }),
  );

  it('snapshots are immutable and share structure; diff lists what changed between two', () => {
    const src = new Subject<ReflectorEvent>();
    const seen: CacheSnapshot<KubeObject>[] = [];
    const scheduler = new VirtualTimeScheduler();
    const informer2 = sharedInformer(src, { scheduler });
    const sub = informer2.state$.subscribe((s) => seen.push(s));
    src.next(replace('1', obj('x', '1'), obj('y', '1')));
    src.next(modified(obj('x', '2')));
    src.next(added(obj('z', '1')));
    scheduler.flush();
    expect(seen.map(show)).toEqual(['x@1,y@1', 'x@2,y@1,z@1']);
    const [first, second] = seen as [CacheSnapshot<KubeObject>, CacheSnapshot<KubeObject>];
    expect(first.get('ns/x')?.metadata?.resourceVersion).toBe('1');
    expect(second.diff(first).map((c) => `${c.key}:${c.before?.metadata?.resourceVersion ?? '-'}>${c.after?.metadata?.resourceVersion ?? '-'}`).sort()).toEqual([
      'ns/x:1>2',
      'ns/z:->1',
    ]);
    expect(second.get('ns/y')).toBe(first.get('ns/y')); // the same frozen object
    expect(Object.isFrozen(second)).toBe(true);
    sub.unsubscribe();
  });

  it('subscribing runs the informer; the last unsubscribe stops it and releases the registration', () => {
    let open = 0;
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(
      defer(() => {
        open++;
        return src.pipe(finalize(() => open--));
      }),
      { scheduler: new VirtualTimeScheduler() },
    );
    const a = informer.state$.subscribe();
    const b = informer.state$.subscribe();
    expect(open).toBe(1);
    expect([...informer.backlogs().keys()]).toEqual(['informer/state']);
    a.unsubscribe();
    expect(open).toBe(1);
    b.unsubscribe();
    expect(open).toBe(0);
    expect(informer.isRunning).toBe(false);
    expect(informer.backlogs().size).toBe(0);
  });

  it('combineLatest of two state$ emits the first table only when both informers are synced', () => {
    const scheduler = new VirtualTimeScheduler();
    const podsSrc = new Subject<ReflectorEvent>();
    const nodesSrc = new Subject<ReflectorEvent>();
    const pods = sharedInformer(podsSrc, { scheduler, name: 'pods' });
    const nodes = sharedInformer(nodesSrc, { scheduler, name: 'nodes' });
    const tables: string[] = [];
    const sub = combineLatest([pods.state$, nodes.state$]).subscribe(([p, n]) => tables.push(`${show(p)} | ${show(n)}`));
    podsSrc.next(replace('1', obj('p1', '1')));
    scheduler.flush();
    expect(tables).toEqual([]);
    nodesSrc.next(replace('1', obj('n1', '1')));
    scheduler.flush();
    expect(tables).toEqual(['p1@1 | n1@1']);
    podsSrc.next(added(obj('p2', '2')));
    scheduler.flush();
    expect(tables).toEqual(['p1@1 | n1@1', 'p1@1,p2@2 | n1@1']);
    sub.unsubscribe();
  });
});
