/**
 * `until` on a stale cache (issue 27, item 3): a demo printed "orphan copy removed" while the
 * server still held the copy — it waited for `(o) => o === undefined` right after creating the
 * copy, and the cache had not seen the create yet. With the write given as `after`, the predicate
 * is tested only once the cache shows the write.
 */
import { describe, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { until } from '../../src/informer/wait.js';
import { added, deleted, fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const copy: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'copy', resourceVersion: '5', uid: 'u1' } };
const gone = (o: KubeObject | undefined): boolean => o === undefined;

describe('until after a write of this process', () => {
  it(
    'without after, a "gone" predicate passes at once on a cache that has not seen the create (the stale case)',
    marbles((m) => {
      const cms = fakeSource({ resource: CONFIG_MAPS, events$: m.hot('--a--d', { a: added(copy), d: deleted(copy) }) });
      m.expect(until(cms, copy, gone, { scheduler: m.scheduler })).toBeObservable('(u|)', { u: undefined });
    }),
  );

  it(
    'with after: the predicate is tested only once the cache shows the write',
    marbles((m) => {
      const cms = fakeSource({ resource: CONFIG_MAPS, events$: m.hot('--a--d', { a: added(copy), d: deleted(copy) }) });
      m.expect(until(cms, copy, gone, { after: copy, scheduler: m.scheduler })).toBeObservable('-----(u|)', { u: undefined });
    }),
  );

  it(
    'with after a delete, and the timeout covering both waits',
    marbles((m) => {
      const cms = fakeSource({ resource: CONFIG_MAPS, initial: [copy], events$: m.hot('----d', { d: deleted(copy) }) });
      m.expect(until(cms, 'ns/copy', (o) => o === undefined, { after: { deleted: copy }, scheduler: m.scheduler })).toBeObservable('----(u|)', { u: undefined });
      const never = fakeSource({ resource: CONFIG_MAPS });
      const waited = until(never, copy, gone, { after: copy, scheduler: m.scheduler, timeoutMs: 3 });
      m.expect(waited).toBeObservable('---#', undefined, new until.TimeoutError('ns/copy after ns/copy at resourceVersion 5', 3));
    }),
  );
});
