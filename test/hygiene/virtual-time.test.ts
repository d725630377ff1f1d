import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { controller } from '../../src/controller/controller.js';
import { informerSource } from '../../src/controller/informer-source.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { virtualTime } from '../manager/virtual-time.js';
import { added, apiError, fakeListWatcher, obj, page } from '../reflector/fake-list-watcher.js';

/**
 * Timer hygiene in virtual time: after unsubscribe / abort, the scheduler's queue is empty (no
 * backoff, watch-timeout, stall, resync, grace, requeue or rate-limit timer left behind).
 */

const asSource = <T extends KubeObject>(informer: SharedInformer<T>) => informerSource(informer, { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true });

describe('hygiene: virtual-time scheduler queues are empty after stop', () => {
  it('reflector: unsubscribed while watching, while backing off, while listing', async () => {
    for (const stopAt of [5, 40, 250, 2_000]) {
      const vt = virtualTime();
      const lw = fakeListWatcher(vt.scheduler, {
        lists: [{ page: page([obj('a', '1')], '1') }, { error: apiError(500, 'InternalError'), at: 3 }, { page: page([obj('a', '1')], '5'), at: 100 }, { hang: true }],
        watches: [
          { events: [[10, added(obj('b', '2'))]], closeAt: 20 },
          { errorAt: 5, error: apiError(410, 'Expired') },
          { events: [[1, added(obj('c', '6'))]] },
        ],
      });
      const seen: ReflectorEvent[] = [];
      const sub = listWatch(lw, { scheduler: vt.scheduler, streamingList: false, random: () => 0.5, backoff: { initialMs: 50, maxMs: 100 }, idleTimeoutMs: 10_000 }).subscribe((e) => seen.push(e));
      await vt.advance(stopAt);
      expect(seen.length).toBeGreaterThan(0);
      sub.unsubscribe();
      expect(vt.scheduler.actions, `timers left after stop at ${stopAt} ms`).toHaveLength(0);
      for (const c of [...lw.listCalls, ...lw.watchCalls]) expect(c.endedAt !== undefined || c.unsubscribedAt !== undefined).toBe(true);
    }
  });

  it('informer: resync timers and the stop grace are cleared', async () => {
    const vt = virtualTime();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { scheduler: vt.scheduler, defaultResyncPeriodMs: 1_000, stopGraceMs: 500 });
    const a = informer.listen({ resyncPeriodMs: 1_000 }).events$.subscribe();
    const b = informer.listen({ resyncPeriodMs: 3_000 }).events$.subscribe();
    src.next({ type: 'replace', items: [obj('a', '1'), obj('b', '2')], resourceVersion: '2' });
    await vt.advance(5_000);
    expect(vt.scheduler.actions.length).toBeGreaterThan(0);
    a.unsubscribe();
    b.unsubscribe();
    expect(informer.isRunning).toBe(true);
    await vt.advance(500);
    expect(informer.isRunning).toBe(false);
    expect(vt.scheduler.actions).toHaveLength(0);
    expect(src.observed).toBe(false);
  });

  it('controller: requeue-after, rate-limited retries and the sync timeout are cleared on abort', async () => {
    const vt = virtualTime();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { scheduler: vt.scheduler });
    let calls = 0;
    const c = controller({
      name: 'hygiene-vt',
      for: asSource(informer),
      scheduler: vt.scheduler,
      concurrency: 2,
      shutdownGracePeriodMs: 1_000,
      reconcile: (req) => {
        calls++;
        if (req.name === 'a') return { requeueAfter: 700 };
        if (req.name === 'b') throw new Error('always fails');
        return vt.sleep(300).then(() => undefined);
      },
    });
    const stop = new AbortController();
    const run = informer.run$.subscribe();
    const done = c.start(stop.signal);
    src.next({ type: 'replace', items: [obj('a', '1'), obj('b', '2'), obj('c', '3')], resourceVersion: '3' });
    await vt.advance(3_000);
    expect(calls).toBeGreaterThan(5);
    stop.abort();
    await vt.advance(1_000);
    await done;
    run.unsubscribe();
    await vt.advance(0);
    expect(vt.scheduler.actions).toHaveLength(0);
    expect(src.observed).toBe(false);
  });
});
