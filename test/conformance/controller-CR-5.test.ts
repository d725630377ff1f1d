/** docs/semantics.md §8.2 CR-5: controller start — sync wait bounded by cacheSyncTimeout, no reconcile before every handler saw the initial list, one start only. */
import { BehaviorSubject, concat, defer, delay, map, NEVER, of, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { Indexer } from '../../src/cache/indexer.js';
import { CacheSyncTimeoutError, ControllerStartedTwiceError } from '../../src/controller/controller-errors.js';
import type { ControllerSource } from '../../src/controller/controller-source.js';
import { controller } from '../../src/controller/controller.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const cm = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: '1' } });
let n = 0;
const name = () => `cr5-${++n}`;

/** A source whose handler gets its initial adds slowly (one per 10 frames) and syncs after the last. */
function slowHandlerSource(objects: KubeObject[]): ControllerSource {
  const store = new Indexer();
  for (const o of objects) store.upsert(o);
  return {
    resource: CM,
    store,
    register: () => {
      const handled = new BehaviorSubject(false);
      const events$ = concat(
        ...objects.map((object) => timer(10).pipe(map((): InformerEvent => ({ type: 'add', object, isInInitialList: true })))),
        defer(() => (handled.next(true), NEVER)),
      );
      return { events$, synced$: handled };
    },
  };
}

describe('CR-5 controller start', () => {
  it(
    'errors with CacheSyncTimeoutError naming the unsynced source after cacheSyncTimeout',
    marbles((m) => {
      const src = fakeSource({ resource: CM, name: 'v1/ConfigMap', synced$: NEVER });
      const c = controller({ name: name(), for: src, scheduler: m.scheduler, cacheSyncTimeoutMs: 50, reconcile: () => undefined });
      m.expect(c.run()).toBeObservable('50ms #', undefined, new CacheSyncTimeoutError(c.name, ['v1/ConfigMap'], 50));
    }),
  );

  it(
    'does not error when the caches sync within a long enough timeout; default timeout is 2 minutes',
    marbles((m) => {
      const slow = fakeSource({ resource: CM, initial: [cm('a')], synced$: of(true).pipe(delay(119_999)) });
      const c = controller({ name: name(), for: slow, scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(c.run().pipe(map((o) => o.key))).toBeObservable('119999ms a', { a: 'ns/a' });
      const never = fakeSource({ resource: CM, synced$: NEVER });
      const d = controller({ name: name(), for: never, scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(d.run()).toBeObservable('120000ms #', undefined, new CacheSyncTimeoutError(d.name, ['v1/ConfigMap'], 120_000));
    }),
  );

  it(
    'does not reconcile until every event handler processed the initial objects',
    marbles((m) => {
      const calls: string[] = [];
      const c = controller({
        name: name(),
        for: slowHandlerSource([cm('a'), cm('b'), cm('c')]),
        scheduler: m.scheduler,
        reconcile: (req) => void calls.push(`${req.name}@${m.scheduler.now()}`),
      });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('30ms (abc)');
      m.flush();
      expect(calls).toEqual(['a@30', 'b@30', 'c@30']);
    }),
  );

  it(
    'waits for ALL sources (for, owns, watches) to sync',
    marbles((m) => {
      const a = fakeSource({ resource: CM, initial: [cm('a')] });
      const b = fakeSource({ resource: { apiVersion: 'v1', kind: 'Secret', namespaced: true }, synced$: timer(40).pipe(map(() => true)) });
      const c = controller({ name: name(), for: a, owns: [b], scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('40ms a');
    }),
  );

  it('returns an error when started more than once', async () => {
    const c = controller({ name: name(), for: fakeSource({ resource: CM }), reconcile: () => undefined });
    const ac = new AbortController();
    const first = c.start(ac.signal);
    await expect(c.start(ac.signal)).rejects.toBeInstanceOf(ControllerStartedTwiceError);
    ac.abort();
    await expect(first).resolves.toBeUndefined();
  });

  it('stopping before the caches synced is not an error', async () => {
    const ts = new TestScheduler(() => undefined);
    const c = controller({
      name: name(),
      for: fakeSource({ resource: CM, synced$: NEVER }),
      scheduler: ts,
      reconcile: () => undefined,
    });
    const ac = new AbortController();
    const p = c.start(ac.signal);
    ac.abort();
    await expect(p).resolves.toBeUndefined();
  });
});
