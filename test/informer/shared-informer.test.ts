import { NEVER, Subject, concat, type Subscription, VirtualTimeScheduler, defer, finalize, map, of, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { InformerSourceError, ListenerError } from '../../src/informer/informer-errors.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { marbles } from '../helpers/marbles.js';
import { added, brief, deleted, gated, modified, obj, replace } from './helpers.js';

const events = {
  r: replace('1', obj('x', '1')),
  a: added(obj('y', '2')),
  m: modified(obj('x', '3')),
  d: deleted(obj('y', '4')),
};

describe('sharedInformer', () => {
  it(
    'late subscribers get the cache as initial adds, then live events (no gap, no duplicate)',
    marbles((m) => {
      const source = m.hot('-r--a------m--d', events);
      const informer = sharedInformer(source);
      const brief$ = informer.events$.pipe(map(brief));
      m.expect(brief$, '^--------------').toBeObservable('-x--y------z--w', {
        x: 'add x@1*',
        y: 'add y@2',
        z: 'update x@1>x@3',
        w: 'delete y@4',
      });
      m.expect(brief$, '-----^---------').toBeObservable('-----(xy)--z--w', {
        x: 'add x@1*',
        y: 'add y@2*',
        z: 'update x@1>x@3',
        w: 'delete y@4',
      });
    }),
  );

  it('one source subscription and one cache for any number of subscribers', () => {
    let subscriptions = 0;
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(defer(() => (subscriptions++, src)));
    const seen = [[], [], []] as string[][];
    const subs = seen.map((out) => informer.events$.subscribe((e) => out.push(brief(e))));
    src.next(events.r);
    src.next(events.a);
    expect(subscriptions).toBe(1);
    for (const out of seen) expect(out).toEqual(['add x@1*', 'add y@2']);
    expect(informer.store.size).toBe(2);
    for (const s of subs) s.unsubscribe();
    expect(informer.isRunning).toBe(false);
  });

  it(
    'stops after the grace period once the last subscriber left; a quick resubscribe does not relist',
    marbles((m) => {
      let subscribes = 0;
      let unsubscribes = 0;
      const source = defer(() => {
        subscribes++;
        return m.cold('r', events).pipe(finalize(() => unsubscribes++));
      });
      const informer = sharedInformer(source, { stopGraceMs: 10, scheduler: m.scheduler });
      const seen: string[] = [];
      let sub: Subscription | undefined;
      m.scheduler.schedule(() => (sub = informer.events$.subscribe((e) => seen.push(brief(e)))), 0);
      m.scheduler.schedule(() => sub?.unsubscribe(), 5);
      // back within the grace: the same list/watch, the cache is replayed
      m.scheduler.schedule(() => (sub = informer.events$.subscribe((e) => seen.push(brief(e)))), 12);
      m.scheduler.schedule(() => {
        expect(subscribes).toBe(1);
        expect(unsubscribes).toBe(0);
        sub?.unsubscribe();
      }, 14);
      m.scheduler.schedule(() => {
        expect(informer.isRunning).toBe(true); // within the grace
      }, 20);
      m.scheduler.schedule(() => {
        expect(informer.isRunning).toBe(false);
        expect(informer.hasSynced()).toBe(false);
        expect(unsubscribes).toBe(1);
        expect(informer.store.size).toBe(1); // the cache stays readable while stopped
        sub = informer.events$.subscribe((e) => seen.push(brief(e)));
      }, 30);
      m.scheduler.schedule(() => {
        expect(subscribes).toBe(2); // a real restart relists
        expect(informer.hasSynced()).toBe(true);
        sub?.unsubscribe();
      }, 31);
      m.scheduler.flush();
      // first: initial add; resubscribe in grace: replay; restart: replay of the stale cache, then
      // the relist finds the same object unchanged (nothing delivered: relistUnchanged is off)
      expect(seen).toEqual(['add x@1*', 'add x@1*', 'add x@1*']);
    }),
  );

  it('a subscriber that throws is reported on errors$ and removed alone', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const errors: Error[] = [];
    informer.errors$.subscribe((e) => errors.push(e));
    const good: string[] = [];
    let badError: unknown;
    informer.events$.subscribe((e) => good.push(brief(e)));
    const bad = informer.listen({
      name: 'bad',
      process: (e: InformerEvent) => {
        if (e.type === 'update') throw new Error('boom');
      },
    });
    bad.events$.subscribe({ error: (e: unknown) => (badError = e) });
    src.next(events.r);
    src.next(events.m);
    src.next(events.a);
    expect(good).toEqual(['add x@1*', 'update x@1>x@3', 'add y@2']);
    expect(badError).toBeInstanceOf(ListenerError);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBe(badError);
    expect((errors[0] as ListenerError).listener).toBe('bad');
    expect([...informer.backlogs().keys()]).toHaveLength(1);
    expect(informer.isRunning).toBe(true);
  });

  it(
    'a slow subscriber never delays others; its backlog is bounded by keys (latest per key, deletes kept)',
    marbles((m) => {
      const src = new Subject<ReflectorEvent>();
      const informer = sharedInformer(src, { scheduler: m.scheduler });
      const fast: string[] = [];
      const slow: string[] = [];
      informer.events$.subscribe((e) => fast.push(brief(e)));
      const slowHandle = informer.listen({
        name: 'slow',
        process: (e: InformerEvent) => timer(100, m.scheduler).pipe(map(() => slow.push(brief(e)))),
      });
      slowHandle.events$.subscribe();
      src.next(replace('1', obj('a', '1'), obj('b', '1'), obj('c', '1')));
      let rv = 1;
      let maxBacklog = 0;
      for (let i = 0; i < 3000; i++) {
        const name = ['a', 'b', 'c'][i % 3] ?? 'a';
        src.next(modified(obj(name, String(++rv))));
        maxBacklog = Math.max(maxBacklog, informer.backlogs().get('slow') ?? 0);
      }
      src.next(deleted(obj('c', String(++rv))));
      maxBacklog = Math.max(maxBacklog, informer.backlogs().get('slow') ?? 0);
      // the cache and the fast subscriber are current at once
      expect(fast).toHaveLength(3 + 3000 + 1);
      expect(informer.store.get('ns/a')?.metadata?.resourceVersion).toBe('2999');
      expect(informer.store.has('ns/c')).toBe(false);
      // the slow one has at most one event per key waiting, however many updates arrived
      expect(maxBacklog).toBeLessThanOrEqual(3);
      expect(maxBacklog).toBeGreaterThan(0);
      m.scheduler.flush();
      // it saw a's first add, then b's initial add coalesced with its updates, then the latest a;
      // c was deleted before its (coalesced) initial add was delivered, so the add and the delete
      // cancel out: the subscriber never hears of c (no delete of an object it never saw)
      expect(slow).toEqual([
        'add a@1*',
        'add b@3000*',
        'update a@1>a@2999',
      ]);
      expect(slowHandle.hasSynced()).toBe(true);
    }),
  );

  it('a slow subscriber gets a recreated key as delete then add, coalesced with later updates', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const slow: string[] = [];
    const { steps, process } = gated((e) => slow.push(brief(e)));
    informer.listen({ name: 'slow', process }).events$.subscribe();
    src.next(replace('1', obj('a', '1'), obj('b', '1')));
    // 'a' is in flight; finishing it hands out b's initial add (now in flight, so b is known)
    steps.shift()?.complete();
    src.next(deleted(obj('b', '2')));
    src.next(added(obj('b', '3')));
    src.next(modified(obj('b', '4')));
    expect(informer.backlogs().get('slow')).toBe(2); // b: the delete and the latest add
    for (let i = 0; i < 10 && steps.length > 0; i++) steps.shift()?.complete();
    expect(slow).toEqual(['add a@1*', 'add b@1*', 'delete b@2', 'add b@4']);
  });

  it('objects handed out are frozen and managedFields are dropped by default', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const got: KubeObject[] = [];
    informer.events$.subscribe((e) => {
      if (e.type === 'add') got.push(e.object);
    });
    src.next(replace('1', { metadata: { name: 'x', namespace: 'ns', resourceVersion: '1', managedFields: [{}], labels: { a: 'b' } } }));
    const o = got[0] as KubeObject;
    expect(o.metadata?.managedFields).toBeUndefined();
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.metadata?.labels)).toBe(true);
    expect(() => {
      (o.metadata?.labels as Record<string, string>).a = 'c';
    }).toThrow(TypeError);
    expect(informer.store.get('ns/x')).toBe(o);
  });

  it('transform: null keeps managedFields; a custom transform runs before caching', () => {
    const src = new Subject<ReflectorEvent>();
    const keep = sharedInformer(src, { transform: null });
    const upper = sharedInformer(src, {
      transform: (o) => ({ ...o, metadata: { ...o.metadata, name: (o.metadata?.name ?? '').toUpperCase() } }),
    });
    keep.run$.subscribe();
    upper.run$.subscribe();
    src.next(replace('1', { metadata: { name: 'x', namespace: 'ns', resourceVersion: '1', managedFields: [{}] } }));
    expect(keep.store.get('ns/x')?.metadata?.managedFields).toHaveLength(1);
    expect(upper.store.listKeys()).toEqual(['ns/X']);
  });

  it('per-subscriber filter with transitions (update out of the filter is a delete)', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const seen: string[] = [];
    informer.listen({ filter: (o) => o.metadata?.labels?.['app'] === 'web' }).events$.subscribe((e) => seen.push(brief(e)));
    src.next(replace('1', obj('x', '1', { app: 'web' }), obj('y', '1', { app: 'db' })));
    src.next(modified(obj('y', '2', { app: 'web' })));
    src.next(modified(obj('x', '3', { app: 'db' })));
    src.next(modified(obj('x', '4', { app: 'db' })));
    expect(seen).toEqual(['add x@1*', 'add y@2', 'delete x@1']);
  });

  it('per-subscriber synced$ turns true only after its initial adds are handled (SI-11)', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const { steps, process } = gated();
    const handle = informer.listen({ process });
    const states: boolean[] = [];
    handle.synced$.subscribe((s) => states.push(s));
    handle.events$.subscribe();
    expect(handle.hasSynced()).toBe(false); // never synced before the informer
    src.next(replace('1', obj('x', '1'), obj('y', '1')));
    expect(informer.hasSynced()).toBe(true);
    expect(handle.hasSynced()).toBe(false); // x in flight, y waiting
    steps.shift()?.complete();
    expect(handle.hasSynced()).toBe(false); // y in flight
    src.next(modified(obj('x', '2'))); // a live event does not count
    steps.shift()?.complete();
    expect(handle.hasSynced()).toBe(true);
    steps.shift()?.complete();
    expect(states).toEqual([false, true]);
    // a second registration on a synced informer with a synchronous consumer syncs at once
    const quick = informer.listen();
    quick.events$.subscribe();
    expect(quick.hasSynced()).toBe(true);
  });

  it('a process step returning Promise<void> emits nothing; a Promise with a value emits it', async () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const handled: string[] = [];
    const emitted: unknown[] = [];
    informer.listen({ process: async (e) => void handled.push(brief(e)) }).events$.subscribe((v) => emitted.push(v));
    const named: unknown[] = [];
    informer.listen({ process: async (e) => brief(e) }).events$.subscribe((v) => named.push(v));
    src.next(replace('1', obj('x', '1'), obj('y', '1')));
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(handled).toEqual(['add x@1*', 'add y@1*']);
    expect(emitted).toEqual([]);
    expect(named).toEqual(['add x@1*', 'add y@1*']);
  });

  it('lastSyncResourceVersion follows lists, events and bookmarks', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    expect(informer.lastSyncResourceVersion).toBe('');
    informer.run$.subscribe();
    src.next(events.r);
    expect(informer.lastSyncResourceVersion).toBe('1');
    src.next(events.a);
    expect(informer.lastSyncResourceVersion).toBe('2');
    src.next({ type: 'bookmark', resourceVersion: '9' });
    expect(informer.lastSyncResourceVersion).toBe('9');
  });

  it('addIndexers works before start, and after start back-fills the cached objects', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    informer.addIndexers({ byApp: (o) => [o.metadata?.labels?.['app'] ?? ''] });
    const sub = informer.run$.subscribe();
    src.next(replace('1', obj('x', '1', { app: 'web' }), obj('y', '1', { app: 'db' })));
    expect(informer.store.byIndex('byApp', 'web')).toHaveLength(1);
    informer.addIndexers({ byName: (o) => [o.metadata?.name ?? ''] });
    expect(informer.store.indexKeys('byName', 'y')).toEqual(['ns/y']);
    src.next(added(obj('z', '2')));
    expect(informer.store.indexKeys('byName', 'z')).toEqual(['ns/z']);
    sub.unsubscribe();
    informer.addIndexers({ other: () => ['o'] });
    expect(informer.store.indexKeys('other', 'o')).toEqual(['ns/x', 'ns/y', 'ns/z']);
    expect(() => informer.addIndexers({ other: () => [] })).toThrow(/indexer conflict: other/);
  });

  it('waitForSync resolves false after its timeout (virtual time) and true once synced', async () => {
    const scheduler = new VirtualTimeScheduler();
    const informer = sharedInformer(concat(of(events.r), NEVER), { scheduler });
    const p = informer.waitForSync(50);
    scheduler.flush();
    expect(await p).toBe(false);
    informer.run$.subscribe();
    expect(await informer.waitForSync(50)).toBe(true);
  });

  it('a source error is reported on errors$, ends every subscriber, and a resubscribe restarts', () => {
    const first = new Subject<ReflectorEvent>();
    let n = 0;
    const informer = sharedInformer(defer(() => (++n === 1 ? first : of(events.r))));
    const errors: Error[] = [];
    informer.errors$.subscribe((e) => errors.push(e));
    const subErr: unknown[] = [];
    informer.events$.subscribe({ error: (e: unknown) => subErr.push(e) });
    informer.events$.subscribe({ error: (e: unknown) => subErr.push(e) });
    const boom = new Error('fatal');
    first.error(boom);
    expect(subErr).toEqual([boom, boom]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InformerSourceError);
    expect((errors[0] as InformerSourceError).cause).toBe(boom);
    expect(informer.isRunning).toBe(false);
    const seen: string[] = [];
    informer.events$.subscribe((e) => seen.push(brief(e)));
    expect(n).toBe(2);
    expect(seen).toEqual(['add x@1*']);
  });
});
