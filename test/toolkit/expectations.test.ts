/** ControllerExpectations: counts, keyed deletions, TTL on the scheduler's clock, observe(). */
import { map, Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { controller } from '../../src/controller/controller.js';
import { ControllerExpectations } from '../../src/controller/expectations.js';
import { marbles } from '../helpers/marbles.js';
import { added, deleted, fakeSource, updated } from '../../src/testing/controller-harness.js';

const child = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, namespace: 'ns', labels: { owner: 'o' }, ...extra } });
const ownerOf = (o: KubeObject): string | undefined => (o.metadata?.labels?.['owner'] ? `ns/${o.metadata.labels['owner']}` : undefined);

describe('ControllerExpectations', () => {
  it('creations count down; deletions by key count once; raise adds', () => {
    const e = new ControllerExpectations();
    expect(e.satisfied('ns/o')).toBe(true);
    e.expectCreations('ns/o', 2);
    e.creationObserved('ns/o');
    expect(e.pending('ns/o')).toEqual({ creations: 1, deletions: 0 });
    e.creationObserved('ns/o');
    expect(e.satisfied('ns/o')).toBe(true);
    e.expectDeletions('ns/o', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/o', 'ns/a');
    e.deletionObserved('ns/o', 'ns/a');
    e.deletionObserved('ns/o', 'ns/zzz');
    expect(e.pending('ns/o')).toEqual({ creations: 0, deletions: 1 });
    e.raise('ns/o', 1);
    expect(e.pending('ns/o')).toEqual({ creations: 1, deletions: 1 });
    e.expectDeletions('ns/o', 2);
    e.deletionObserved('ns/o');
    e.deletionObserved('ns/o');
    expect(e.satisfied('ns/o')).toBe(true);
    e.expectCreations('ns/o', 1);
    e.forget('ns/o');
    expect(e.satisfied('ns/o')).toBe(true);
  });

  it('a record expires after ttlMs on the scheduler clock; expiresIn says when', () => {
    const scheduler = new VirtualTimeScheduler();
    const e = new ControllerExpectations({ scheduler, ttlMs: 1000 });
    e.expectCreations('ns/o', 1);
    scheduler.schedule(() => undefined, 400);
    scheduler.flush();
    expect(e.expiresIn('ns/o')).toBe(600);
    expect(e.satisfied('ns/o')).toBe(false);
    scheduler.schedule(() => undefined, 600);
    scheduler.flush();
    expect(e.satisfied('ns/o')).toBe(true);
    expect(e.expiresIn('ns/o')).toBeUndefined();
  });

  it('observe(): adds count as creations, terminating updates and deletes (and tombstones) as deletions, before the controller sees them', () => {
    const e = new ControllerExpectations();
    const live = new Subject<InformerEvent<KubeObject>>();
    const terminating = child('a', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    const source = fakeSource<KubeObject>({ resource: { apiVersion: 'v1', kind: 'Pod', namespaced: true }, events$: live });
    const observed = e.observe(source, ownerOf);
    const seen: string[] = [];
    const sub = observed.register().events$.subscribe((ev) => seen.push(`${ev.type}:${JSON.stringify(e.pending('ns/o') ?? null)}`));
    e.expectCreations('ns/o', 1);
    live.next(added(child('a')));
    e.expectDeletions('ns/o', ['ns/a', 'ns/b']);
    live.next(updated(child('a'), terminating));
    live.next(updated(terminating, terminating));
    live.next(deleted(child('b'), true));
    live.next(added(child('c', { labels: {} })));
    expect(seen).toEqual(['add:null', 'update:{"creations":0,"deletions":1}', 'update:{"creations":0,"deletions":1}', 'delete:null', 'add:null']);
    expect(observed.resource).toBe(source.resource);
    sub.unsubscribe();
  });
});

describe('ctx.expectations', () => {
  it(
    'a controller owns its expectations; the events of owns sources lower them before they become requests',
    marbles((m) => {
      const parent = { apiVersion: 'example.com/v1', kind: 'Parent', metadata: { name: 'p', namespace: 'ns', uid: 'up' } };
      const kid = (name: string): KubeObject => ({
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Parent', name: 'p', uid: 'up', controller: true }] },
      });
      const parents = fakeSource<KubeObject>({ resource: { apiVersion: 'example.com/v1', kind: 'Parent', namespaced: true }, initial: [parent] });
      const kids = fakeSource<KubeObject>({
        resource: { apiVersion: 'v1', kind: 'Pod', namespaced: true },
        events$: m.hot('----a-b', { a: added(kid('k1')), b: added(kid('k2')) }),
      });
      const seen: string[] = [];
      const ctl = controller({
        name: `expectations-${Math.random()}`,
        for: parents,
        owns: [kids],
        scheduler: m.scheduler,
        expectationsTtlMs: 100,
        reconcile: (req, ctx) => {
          const key = `${req.namespace}/${req.name}`;
          const first = seen.length === 0;
          seen.push(`${m.scheduler.now()}:${JSON.stringify(ctx.expectations.pending(key) ?? null)}`);
          if (first) ctx.expectations.expectCreations(key, 2); // "creates" two pods
          return undefined;
        },
      });
      m.expect(ctl.run().pipe(map((o) => o.kind)), '^ 20ms !').toBeObservable('s---s-s', { s: 'success' });
      m.scheduler.schedule(() => expect(seen).toEqual(['0:null', '4:{"creations":1,"deletions":0}', '6:null']), 10);
    }),
  );
});
