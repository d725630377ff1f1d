/**
 * Marble tests of the TTL controller: ConfigMap events go in as a marble diagram, reconcile
 * outcomes come out as one, all in virtual time (one frame = 1 ms of the controller's clock), so
 * "come back in 30 ms" is checked to the frame without waiting.
 *
 * The pattern:
 * 1. `fakeSource` (rxkube/testing) stands in for the informer: `initial` objects are listed
 *    before the start; `events$` (a hot marble) brings live adds, updates and deletes.
 * 2. The controller gets the TestScheduler as its `scheduler`: its work queue, requeues and
 *    backoff timers run in virtual time. Reconciles return Observables (timers, not Promises).
 * 3. `controller.run()` is the stream of reconcile outcomes: assert it with `expectObservable`.
 */
import { map, throwError, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { resources, type K8s, type ReconcileOutcome } from 'rxkube';
import { exponentialFailureRateLimiter } from 'rxkube/workqueue';
import { added, deleted, fakeSource, updated } from 'rxkube/testing';
import { EXPIRES_AT, ttlController } from './ttl-controller.js';

const CONFIG_MAPS = resources.configMaps;

/** A ConfigMap expiring at virtual time `expiresAt` (ms), or never. */
function configMap(name: string, expiresAt?: number, resourceVersion = '1'): K8s.ConfigMap {
  const annotations: Record<string, string> = expiresAt === undefined ? {} : { [EXPIRES_AT]: new Date(expiresAt).toISOString() };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion, annotations } };
}

/** An outcome as the marble values spell it: `name kind [requeue delay]`. */
const outcome = (o: ReconcileOutcome): string => `${o.request.name} ${o.kind}${o.requeueAfter === undefined ? '' : ` ${o.requeueAfter}`}`;

/** A TestScheduler asserting with vitest. */
const virtualTime = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

let controllers = 0;
const uniqueName = (): string => `ttl-${++controllers}`; // controller names are unique per process

describe('TTL controller in virtual time', () => {
  it('wakes at each expiry and deletes then; a later expiry moves the wake-up', () => {
    const scheduler = virtualTime();
    scheduler.run(({ hot, expectObservable, flush }) => {
      const deletes: string[] = [];
      const configMaps = fakeSource({
        resource: CONFIG_MAPS,
        initial: [configMap('a', 30), configMap('b')],
        // frame 5: c arrives, expiring at 10; frame 20: a's expiry moves to 50
        events$: hot('-----c--------------u', {
          c: added(configMap('c', 10)),
          u: updated(configMap('a', 30), configMap('a', 50, '2')),
        }),
      });
      const ttl = ttlController({
        name: uniqueName(),
        configMaps,
        scheduler,
        remove: (req) => timer(2).pipe(map(() => deletes.push(`${req.name}@${scheduler.now()}`))), // a delete takes 2 frames
      });

      // A group `(ab)` emits both at its first frame and takes 4 frames of the diagram.
      expectObservable(ttl.run().pipe(map(outcome))).toBe('(ab)-c------d-------e-------------------------------f', {
        a: 'a requeue_after 30', // listed at 0, expires at 30
        b: 'b success', //          never expires: done
        c: 'c requeue_after 5', //  arrives at 5, expires at 10
        d: 'c success', //          woken at 10, deleted by 12
        e: 'a requeue_after 30', // updated at 20: expires at 50 now (the wake-up at 30 is replaced)
        f: 'a success', //          woken at 50, deleted by 52
      });
      flush();
      expect(deletes).toEqual(['c@12', 'a@52']);
    });
  });

  it('retries a failing delete with exponential backoff', () => {
    const scheduler = virtualTime();
    scheduler.run(({ expectObservable, flush }) => {
      const attempts: number[] = [];
      const ttl = ttlController({
        name: uniqueName(),
        configMaps: fakeSource({ resource: CONFIG_MAPS, initial: [configMap('x', 0)] }),
        scheduler,
        rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 10 }), // retry after 10, 20, 40, … frames
        // the API server refuses twice, then accepts (taking 1 frame)
        remove: () => {
          attempts.push(scheduler.now());
          return attempts.length <= 2 ? throwError(() => new Error('503 ServiceUnavailable')) : timer(1);
        },
      });

      expectObservable(ttl.run().pipe(map(outcome))).toBe('e---------f--------------------s', {
        e: 'x error 10', //  fails at 0: retry in 10
        f: 'x error 20', //  fails at 10: retry in 20
        s: 'x success', //   tried at 30, deleted by 31
      });
      flush();
      expect(attempts).toEqual([0, 10, 30]);
    });
  });

  it('does nothing for a ConfigMap deleted before it expires', () => {
    const scheduler = virtualTime();
    scheduler.run(({ hot, expectObservable, flush }) => {
      const deletes: string[] = [];
      const ttl = ttlController({
        name: uniqueName(),
        configMaps: fakeSource({
          resource: CONFIG_MAPS,
          initial: [configMap('a', 30)],
          events$: hot('----------d', { d: deleted(configMap('a', 30)) }), // someone else deletes it at 10
        }),
        scheduler,
        remove: (req) => timer(2).pipe(map(() => deletes.push(req.name))),
      });

      expectObservable(ttl.run().pipe(map(outcome))).toBe('a---------g', {
        a: 'a requeue_after 30',
        g: 'a success', // at 10 it is gone from the cache: nothing to do, and no wake-up at 30 is left
      });
      flush();
      expect(deletes).toEqual([]);
    });
  });
});
