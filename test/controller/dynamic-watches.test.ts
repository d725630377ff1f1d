/**
 * Dynamic watches (docs/runtime-change.md): a controller follows an Observable of watch specs, in
 * virtual time — a dropped source's later events are not reconciled, a running reconcile finishes,
 * a dropped kind's informer stops after the grace and its cache is emptied, re-adding lists again.
 */
import { map, Observable, of, tap, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListPage, WatchEvent } from '../../src/api/list-watcher.js';
import type { ResourceType } from '../../src/api/resource.js';
import { controller } from '../../src/controller/controller.js';
import type { DynamicWatchSpec } from '../../src/controller/dynamic-watch-spec.js';
import { ControllerBuildError } from '../../src/controller/controller-errors.js';
import { InformerFactory, type ListWatcherFactory } from '../../src/informer/informer-factory.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { added, fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const WIDGETS: ResourceType = { apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets', namespaced: true };
const cm = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: '1' } });
const widget = (name: string): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { namespace: 'ns', name, resourceVersion: '1' } });
const byName = (o: KubeObject): string[] => [`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`];
let n = 0;
const name = () => `dyn-${++n}`;

/** A transport serving `widgets`, counting lists and open watches. */
function widgetTransport(items: readonly KubeObject[]): { make: ListWatcherFactory; lists: number; openWatches: number } {
  const t = {
    lists: 0,
    openWatches: 0,
    make: (() => ({
      list: () => {
        t.lists++;
        return of<ListPage>({ items, resourceVersion: '1' });
      },
      watch: () =>
        new Observable<WatchEvent>(() => {
          t.openWatches++;
          return () => void t.openWatches--;
        }),
    })) as ListWatcherFactory,
  };
  return t;
}

describe('dynamicWatches', () => {
  it(
    'events of a source after its removal are not reconciled; the reconcile running then finishes',
    marbles((m) => {
      const src = fakeSource({
        resource: CM,
        name: 'cms',
        events$: m.hot('--x---y', { x: added(cm('x')), y: added(cm('y')) }),
      });
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('a---e', { a: [{ source: src, map: byName }], e: [] });
      const c = controller({
        name: name(),
        dynamicWatches: specs$,
        scheduler: m.scheduler,
        reconcile: () => timer(5).pipe(map(() => undefined)),
      });
      // x at 2 runs until 7 although its source was dropped at 4; y (6) enqueues nothing.
      m.expect(c.run().pipe(map((o) => `${o.request.name}:${o.kind}`)), '^ 30ms !').toBeObservable('7ms x', { x: 'x:success' });
    }),
  );

  it(
    'a source joining later is watched from then on, its cache first; an unchanged set keeps it',
    marbles((m) => {
      const src = fakeSource({ resource: CM, name: 'cms', initial: [cm('a')], events$: m.hot('-----b', { b: added(cm('b')) }) });
      const spec = { source: src, map: byName };
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('e--a-a', { e: [], a: [spec] });
      const c = controller({ name: name(), dynamicWatches: specs$, scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 30ms !').toBeObservable('---a-b');
      m.flush();
      expect(src.registrations).toBe(1);
    }),
  );

  it(
    'a dropped kind: its informer stops after the factory grace and its cache is freed; added again, it lists again',
    marbles((m) => {
      const t = widgetTransport([widget('a')]);
      const informers = new InformerFactory(t.make, { scheduler: m.scheduler, stopGraceMs: 30 });
      const spec: DynamicWatchSpec = { source: WIDGETS, map: byName };
      // added at 0, dropped at 10, added again at 60
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('a 9ms e 49ms a', { a: [spec], e: [] });
      const c = controller({ name: name(), dynamicWatches: specs$, informers, scheduler: m.scheduler, reconcile: () => undefined });
      const probes: Record<number, unknown> = {};
      let first: SharedInformer | undefined;
      const probe = (at: number): void =>
        void m.scheduler.schedule(() => {
          first ??= informers.leased()[0]?.informer;
          probes[at] = { watches: t.openWatches, leased: informers.leased().length, cached: first?.store.size, running: first?.isRunning };
        }, at);
      [5, 35, 45, 65].forEach(probe);
      const times: number[] = [];
      m.expect(c.run().pipe(tap(() => times.push(m.scheduler.now())), map((o) => o.request.name)), '^ 100ms !').toBeObservable(
        'a 59ms a',
      );
      m.flush();
      expect(probes[5]).toEqual({ watches: 1, leased: 1, cached: 1, running: true });
      expect(probes[35]).toEqual({ watches: 1, leased: 1, cached: 1, running: true }); // within the grace (10 + 30)
      expect(probes[45]).toEqual({ watches: 0, leased: 0, cached: 0, running: false }); // stopped, forgotten, emptied
      expect((probes[65] as { watches: number }).watches).toBe(1); // a new informer
      expect(t.lists).toBe(2);
      expect(informers.list()).toEqual([]); // never pinned: not the factory's for good
    }),
  );

  it(
    'dropped and added again within the grace: the running informer is reused, no relist',
    marbles((m) => {
      const t = widgetTransport([widget('a')]);
      const informers = new InformerFactory(t.make, { scheduler: m.scheduler, stopGraceMs: 30 });
      const spec: DynamicWatchSpec = { source: WIDGETS, map: byName };
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('a 9ms e 9ms a', { a: [spec], e: [] }); // 0 add, 10 drop, 20 add
      const c = controller({ name: name(), dynamicWatches: specs$, informers, scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 100ms !').toBeObservable('a 19ms a'); // the cache replayed at 20
      m.flush();
      expect(t.lists).toBe(1);
    }),
  );

  it(
    'a freed-to-be informer still run by someone else is freed once that one leaves',
    marbles((m) => {
      const t = widgetTransport([widget('a')]);
      const informers = new InformerFactory(t.make, { scheduler: m.scheduler, stopGraceMs: 10 });
      const lease = informers.acquire(WIDGETS);
      const direct = lease.informer.run$.subscribe();
      lease.release();
      m.scheduler.schedule(() => direct.unsubscribe(), 500);
      const at: Record<number, number> = {};
      for (const f of [100, 1000, 1200]) m.scheduler.schedule(() => void (at[f] = informers.leased().length), f);
      m.flush();
      expect(at).toEqual({ 100: 1, 1000: 1, 1200: 0 }); // running at the check (10): held; stopped at 510; freed at the next check (1010)
      expect(lease.informer.store.size).toBe(0);
    }),
  );

  it(
    'an informer also handed out by for() is kept (pinned) when the dynamic watch leaves',
    marbles((m) => {
      const t = widgetTransport([widget('a')]);
      const informers = new InformerFactory(t.make, { scheduler: m.scheduler });
      const pinned = informers.for(WIDGETS);
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('a-e', { a: [{ source: WIDGETS, map: byName }], e: [] });
      const c = controller({ name: name(), dynamicWatches: specs$, informers, scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 20ms !').toBeObservable('a');
      m.flush();
      expect(informers.for(WIDGETS)).toBe(pinned);
      expect(pinned.store.size).toBe(1); // stopped, but the cache is kept
    }),
  );

  it(
    'a bad entry is refused (logged) without failing the controller or the other watches',
    marbles((m) => {
      const src = fakeSource({ resource: CM, name: 'cms', initial: [cm('a')] });
      const errors: string[] = [];
      const logger = {
        debug: () => undefined, info: () => undefined, warn: () => undefined,
        error: (msg: string) => void errors.push(msg),
        child: () => logger,
      };
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('a', {
        a: [{ source: WIDGETS, map: byName }, { source: src, map: byName }], // WIDGETS: no informers given
      });
      const c = controller({ name: name(), dynamicWatches: specs$, scheduler: m.scheduler, logger, reconcile: () => undefined });
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 20ms !').toBeObservable('a');
      m.flush();
      expect(errors).toEqual(['dynamic watch refused']);
    }),
  );

  it('needs an Observable, and cannot be combined with clusters', () => {
    expect(() =>
      controller({ name: name(), dynamicWatches: [] as unknown as Observable<readonly DynamicWatchSpec[]>, reconcile: () => undefined }),
    ).toThrow(ControllerBuildError);
    expect(() => controller({ name: name(), reconcile: () => undefined })).toThrow(/no watches configured/);
  });
});
