/**
 * The async `expiryController` tested unchanged in virtual time, in two styles.
 *
 * The set-up:
 * 1. `virtualTime` (@rxkube/testkit) runs the test on a virtual clock that also lets Promises
 *    settle after every timer, so `await client.delete(…)` finishes in its frame.
 * 2. `cluster` is an embedded API server in this process (no sockets): its `client` and
 *    `informers()` go to the controller as they would in production; `cluster.create(…)` at a
 *    frame (through `scheduler.schedule`) is someone else's write.
 *
 * Outcome style (most tests): `start(controller)`, then `eventually(condition)` runs time until
 * the cluster looks as it should, within a budget of virtual time, and `converged()` until
 * nothing is left to do soon. The test says what must happen and by when, not every reconcile on
 * the way (the controller's own deletes come back as watch events and reconcile again).
 *
 * Exact style (one test below, to show it): `controller.run()` is the stream of reconcile
 * outcomes, asserted to the frame with `expectObservable`; right for timing-critical behaviour,
 * but the diagram has to list every reconcile, including those caused by the controller's writes.
 */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ReconcileOutcome } from 'rxkube';
import { EventuallyTimeoutError, virtualTime } from '@rxkube/testkit';
import { expiryController } from './expiry-controller.js';
import { EXPIRES_AT } from './ttl-controller.js';

/** A ConfigMap in `default` expiring at virtual time `expiresAt` (ms), or never. */
function configMap(name: string, expiresAt?: number): KubeObject {
  const annotations: Record<string, string> = expiresAt === undefined ? {} : { [EXPIRES_AT]: new Date(expiresAt).toISOString() };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, annotations } };
}

const outcome = (o: ReconcileOutcome): string => `${o.request.name} ${o.kind}${o.requeueAfter === undefined ? '' : ` ${o.requeueAfter}`}`;
const assertDeepEqual = (actual: unknown, expected: unknown): void => void expect(actual).toEqual(expected);
let controllers = 0;

describe('expiry controller (async reconcile) in virtual time', () => {
  it('deletes each ConfigMap when it expires, and keeps the one that never expires (outcome style)', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually, converged }) => {
      cluster.seed([configMap('a', 30), configMap('b')]);
      scheduler.schedule(() => void cluster.create(configMap('c', 10)), 5);
      start(expiryController({ client: cluster.client, informers: cluster.informers(), scheduler, name: `expiry-${++controllers}` }));
      const names = (): (string | undefined)[] => cluster.list('v1', 'ConfigMap', 'default').map((cm) => cm.metadata?.name);

      await eventually(() => expect(names()).toContain('c'), { withinMs: 10, what: 'c is created (at 5)' });
      await eventually(() => expect(names()).toEqual(['a', 'b']), { withinMs: 10, what: 'c is deleted once it expires (at 10)' });
      expect(scheduler.now()).toBeGreaterThanOrEqual(10); // not before it expired
      await eventually(() => expect(names()).toEqual(['b']), { withinMs: 30, what: 'a is deleted once it expires (at 30)' });
      expect(scheduler.now()).toBeGreaterThanOrEqual(30);

      const { reconciles, pendingTimers } = await converged();
      expect(reconciles.every((r) => r.outcome.kind === 'success')).toBe(true);
      expect(pendingTimers.every((due) => due > scheduler.now() + 1_000)).toBe(true); // only the watches' far timeouts
      expect(cluster.requests.count({ method: 'DELETE' })).toBe(2); // no delete twice, none of b
    });
  });

  it('eventually fails with a report when the outcome does not come within its budget', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually }) => {
      cluster.seed([configMap('a', 30)]);
      start(expiryController({ client: cluster.client, informers: cluster.informers(), scheduler, name: `expiry-${++controllers}` }));
      const failure = await eventually(() => cluster.get('v1', 'ConfigMap', 'a', 'default') === undefined, {
        withinMs: 20, // a expires at 30: too early
        what: 'a is deleted',
        state: () => cluster.get('v1', 'ConfigMap', 'a', 'default')?.metadata?.annotations,
      }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(EventuallyTimeoutError);
      expect(String((failure as Error).message)).toMatch(/a is deleted did not hold within 20 ms[\s\S]*last state: \{"example.com\/expires-at":"1970-01-01T00:00:00.030Z"\}[\s\S]*default\/a requeue_after 30[\s\S]*requeues pending: expiry-\d+: default\/a at \+10 ms/);
    });
  });

  it('deletes each ConfigMap through the API when it expires, to the frame (exact style)', async () => {
    await virtualTime(
      async ({ cluster, scheduler, expectObservable, flush }) => {
        cluster.seed([configMap('a', 30), configMap('b')]); // listed at the start
        scheduler.schedule(() => void cluster.create(configMap('c', 10)), 5); // created at frame 5
        const ctl = expiryController({ client: cluster.client, informers: cluster.informers(), scheduler, name: `expiry-${++controllers}` });

        // A group `(dd)` emits both at its first frame and takes 4 frames of the diagram.
        expectObservable(ctl.run().pipe(map(outcome)), '^ 100ms !').toBe('(ab)-c----(dd) 16ms (ee)', {
          a: 'a requeue_after 30', // listed at 0, expires at 30
          b: 'b success', //          never expires
          c: 'c requeue_after 5', //  created at 5, expires at 10
          d: 'c success', //          woken at 10: deleted through the client in the same frame; then
          //                          the DELETED event wakes it again (gone: nothing to do)
          e: 'a success', //          the same at 30
        });
        await flush();
        expect(cluster.list('v1', 'ConfigMap', 'default').map((cm) => cm.metadata?.name)).toEqual(['b']);
        expect(cluster.requests.count({ method: 'DELETE' })).toBe(2);
      },
      { assertDeepEqual },
    );
  });

  it('a delete the server refuses (503 for longer than the client retries) is retried by the work queue', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually }) => {
      cluster.seed([configMap('x', 0)]);
      cluster.faults.failNext({ method: 'DELETE', code: 503, count: 6 });
      const ctl = start(expiryController({ client: cluster.client, informers: cluster.informers(), scheduler, name: `expiry-${++controllers}` }));
      // The client retries 503 four times (0.5 + 1 + 2 + 4 s), then the work queue backs off and
      // tries again: x is gone within ten seconds, after one reconcile that failed.
      await eventually(() => cluster.get('v1', 'ConfigMap', 'x', 'default') === undefined, { withinMs: 10_000, what: 'x is deleted' });
      expect(ctl.outcomes.map((o) => o.kind)).toContain('error');
      expect(cluster.requests.count({ method: 'DELETE' })).toBe(7); // six refused, one accepted
    });
  });
});
