/**
 * docs/semantics.md §8.2 CR-5 / CR-5a: watches added and removed after start (`dynamicWatches`) —
 * controller-runtime's `Watch` after start, and rxkube's removal rule.
 */
import { delay, map, NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { controller } from '../../src/controller/controller.js';
import type { DynamicWatchSpec } from '../../src/controller/dynamic-watch-spec.js';
import { LOW_PRIORITY } from '../../src/controller/event-requests.js';
import { added, fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const SECRET = { apiVersion: 'v1', kind: 'Secret', namespaced: true };
const obj = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: '1' } });
const byName = (o: KubeObject): string[] => [`ns/${o.metadata?.name ?? ''}`];
let n = 0;
const name = () => `cr5a-${++n}`;

describe('CR-5 / CR-5a watches added and removed after start', () => {
  it(
    'a watch added while the fixed sources sync does not hold the start; its requests wait for the workers',
    marbles((m) => {
      const fixed = fakeSource({ resource: CM, initial: [obj('f')], synced$: of(true).pipe(delay(20)) });
      const dyn = fakeSource({ resource: SECRET, name: 'secrets', initial: [obj('d')], synced$: NEVER });
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('-----a', { a: [{ source: dyn, map: byName }] });
      const c = controller({ name: name(), for: fixed, dynamicWatches: specs$, scheduler: m.scheduler, reconcile: () => undefined });
      // `dyn` never syncs, yet the workers start at 20 with both held requests.
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 40ms !').toBeObservable('20ms (fd)');
    }),
  );

  it(
    'a watch added long after start: its cache arrives as low-priority initial adds, then its live events',
    marbles((m) => {
      const dyn = fakeSource({ resource: SECRET, name: 'secrets', initial: [obj('old')], events$: m.hot('------------n', { n: added(obj('new')) }) });
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('----------a', { a: [{ source: dyn, map: byName }] });
      const priorities: (number | undefined)[] = [];
      const tagged: DynamicWatchSpec = {
        source: dyn,
        map: byName,
        predicates: [(e) => (priorities.push(e.type === 'add' && e.isInInitialList ? LOW_PRIORITY : undefined), true)],
      };
      const c = controller({
        name: name(),
        for: fakeSource({ resource: CM }),
        dynamicWatches: specs$.pipe(map(() => [tagged])),
        scheduler: m.scheduler,
        reconcile: () => undefined,
      });
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 30ms !').toBeObservable('10ms o-n', { o: 'old', n: 'new' });
      m.flush();
      expect(priorities).toEqual([LOW_PRIORITY, undefined]);
    }),
  );

  it(
    'removal is at once: the next event of the removed source enqueues nothing; the other watches go on; adding it again re-registers',
    marbles((m) => {
      const a = fakeSource({ resource: CM, name: 'a', events$: m.hot('--x-----y------z', { x: added(obj('a1')), y: added(obj('a2')), z: added(obj('a3')) }) });
      const b = fakeSource({ resource: SECRET, name: 'b', events$: m.hot('---------q', { q: added(obj('b1')) }) });
      const A = { source: a, map: byName };
      const B = { source: b, map: byName };
      const specs$ = m.hot<readonly DynamicWatchSpec[]>('s---t---------u', { s: [A, B], t: [B], u: [A, B] });
      const c = controller({ name: name(), dynamicWatches: specs$, scheduler: m.scheduler, reconcile: () => undefined });
      // a1 at 2; a2 at 8 enqueues nothing (a removed at 4; nor does the fake cache take it, no one
      // listening); b1 at 9; a added again at 14: its cache (a1) first, then a3 at 15.
      m.expect(c.run().pipe(map((o) => o.request.name)), '^ 30ms !').toBeObservable('--x------q----yz', {
        x: 'a1',
        q: 'b1',
        y: 'a1',
        z: 'a3',
      });
      m.flush();
      expect(a.registrations).toBe(2);
      expect(b.registrations).toBe(1);
    }),
  );
});
