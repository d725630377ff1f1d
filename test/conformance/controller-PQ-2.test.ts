/** docs/semantics.md §8.3 PQ-2: initial-list creates and resync updates enqueue at priority −100. */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { controller } from '../../src/controller/controller.js';
import { LOW_PRIORITY, mappedRequestsOf, objectRequestsOf, ownerRequestsOf } from '../../src/controller/event-requests.js';
import { added, fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const o = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u', controller: true }] },
});
const cases: [string, InformerEvent, number | undefined][] = [
  ['initial-list create', { type: 'add', object: o('a', '1'), isInInitialList: true }, LOW_PRIORITY],
  ['live create', { type: 'add', object: o('a', '1'), isInInitialList: false }, undefined],
  ['update with unchanged RV', { type: 'update', old: o('a', '1'), object: o('a', '1'), resync: true }, LOW_PRIORITY],
  ['update with changed RV', { type: 'update', old: o('a', '1'), object: o('a', '2'), resync: false }, undefined],
  ['delete', { type: 'delete', object: o('a', '1') }, undefined],
];

describe('PQ-2 low priority when unchanged', () => {
  for (const [label, event, priority] of cases) {
    it(`${label} → priority ${String(priority ?? 'default')} for object, owner and mapped requests`, () => {
      const owner = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
      for (const adds of [objectRequestsOf(event), ownerRequestsOf(event, owner), mappedRequestsOf(event, () => ['ns/m'])]) {
        expect(adds.length).toBe(1);
        expect(adds[0]?.priority).toBe(priority);
      }
    });
  }

  it(
    'a live change overtakes the initial backlog in the controller',
    marbles((m) => {
      const initial = ['a', 'b', 'c'].map((n) => o(n, '1'));
      const src = fakeSource({
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true },
        initial,
        events$: m.hot('-l', { l: added(o('live', '5')) }),
      });
      const c = controller({ name: 'pq2', for: src, scheduler: m.scheduler, reconcile: () => m.cold('--|') });
      // a starts at 0 (the only work); "live" arrives at 1 and goes before b and c
      m.expect(c.run().pipe(map((x) => x.request.name))).toBeObservable('--a-l-b-c', { a: 'a', l: 'live', b: 'b', c: 'c' });
    }),
  );
});
