/** docs/semantics.md §8.2 CR-4: controller defaults (the parts that belong to the builder). */
import { map, take, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { CacheSyncTimeoutError } from '../../src/controller/controller-errors.js';
import { controller } from '../../src/controller/controller.js';
import { classifyRunnable } from '../../src/manager/classify-runnable.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const cm = (name: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: '1' } });
let n = 0;
const name = () => `cr4-${++n}`;

describe('CR-4 controller defaults', () => {
  it(
    'concurrency ≤ 0 → 1: two keys run one after the other',
    marbles((m) => {
      const c = controller({
        name: name(),
        for: fakeSource({ resource: CM, initial: [cm('a'), cm('b')] }),
        concurrency: 0,
        scheduler: m.scheduler,
        reconcile: () => timer(3).pipe(map(() => undefined)),
      });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('---a--b');
    }),
  );

  it(
    'cacheSyncTimeout 0 → 2 minutes',
    marbles((m) => {
      const c = controller({
        name: name(),
        for: fakeSource({ resource: CM, name: 'cms', synced$: m.cold('-') }),
        cacheSyncTimeoutMs: 0,
        scheduler: m.scheduler,
        reconcile: () => undefined,
      });
      m.expect(c.run()).toBeObservable('120000ms #', undefined, new CacheSyncTimeoutError(c.name, ['cms'], 120_000));
    }),
  );

  it(
    'default rate limiter: per-item exponential from 5 ms (5, 10, 20 …)',
    marbles((m) => {
      const c = controller({
        name: name(),
        for: fakeSource({ resource: CM, initial: [cm('a')] }),
        scheduler: m.scheduler,
        reconcile: () => {
          throw new Error('fail');
        },
      });
      const times: number[] = [];
      c.run().pipe(take(4)).subscribe((o) => times.push(o.startedAt));
      m.flush();
      expect(times).toEqual([0, 5, 15, 35]);
    }),
  );

  it('needLeaderElection defaults to true (runs in the manager’s leader-election group); false opts out', () => {
    const src = fakeSource({ resource: CM });
    const leader = controller({ name: name(), for: src, reconcile: () => undefined });
    const always = controller({ name: name(), for: src, needLeaderElection: false, reconcile: () => undefined });
    expect(leader.needLeaderElection).toBe(true);
    expect(classifyRunnable(leader)).toBe('leaderElection');
    expect(classifyRunnable(always)).toBe('others');
  });
});
