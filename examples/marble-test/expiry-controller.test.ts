/**
 * The async `expiryController` tested unchanged in virtual time. The pattern:
 * 1. `virtualTime` (rxkube/testing) runs the test on a virtual clock whose `flush()` also lets
 *    Promises settle after every timer, so `await client.delete(…)` finishes in its frame.
 * 2. `cluster` is an embedded API server in this process (no sockets): its `client` and
 *    `informers()` go to the controller as they would in production; `cluster.create(…)` at a
 *    frame (through `scheduler.schedule`) is someone else's write.
 * 3. `controller.run()` is the stream of reconcile outcomes: assert it with `expectObservable`,
 *    then read the server's state.
 */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ReconcileOutcome } from 'rxkube';
import { virtualTime } from '@rxkube/testkit';
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
  it('deletes each ConfigMap through the API when it expires, to the frame', async () => {
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
    await virtualTime(
      async ({ cluster, scheduler, expectObservable, flush }) => {
        cluster.seed([configMap('x', 0)]);
        cluster.faults.failNext({ method: 'DELETE', code: 503, count: 6 });
        const ctl = expiryController({ client: cluster.client, informers: cluster.informers(), scheduler, name: `expiry-${++controllers}` });
        // The client retries 503 four times (0.5 + 1 + 2 + 4 s), then the work queue backs off 5 ms;
        // the next attempt gets the 6th 503 and retries once more after 0.5 s, then succeeds.
        expectObservable(ctl.run().pipe(map(outcome)), '^ 10s !').toBe('7500ms e 504ms (ss)', { e: 'x error 5', s: 'x success' });
        await flush();
        expect(cluster.get('v1', 'ConfigMap', 'x', 'default')).toBeUndefined();
      },
      { assertDeepEqual },
    );
  });
});
