/**
 * Health after sync: a synced informer whose list/watch keeps failing past the threshold is named
 * by CacheMonitor.failing() (the manager's readiness check `informers`) with the reason, until a
 * watch works again. In virtual time, on the in-process API server.
 */
import { BehaviorSubject, Subject, Subscription, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { virtualTime } from '../../packages/testkit/src/virtual-time.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { CacheMonitor, DEFAULT_WATCH_FAILURE_THRESHOLD_MS, describeFailing } from '../../src/manager/cache-monitor.js';
import { manager } from '../../src/manager/manager.js';
import { managerMetrics } from '../../src/metrics/metrics-registry.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data: { k: 'v' } }) as KubeObject;

describe('CacheMonitor.failing: readiness after sync', () => {
  it('names an informer whose watch keeps failing past the threshold, with the reason; clears once a watch works', async () => {
    await virtualTime(async ({ cluster, scheduler, advance }) => {
      cluster.seed([cm('a')]);
      const monitor = new CacheMonitor({ logger: noopLogger, metrics: managerMetrics(), scheduler });
      const informer = cluster.informers().configMaps({ namespace: 'default' });
      const subs = new Subscription();
      subs.add(monitor.track({ name: 'cache', informers: [informer], client: cluster.client }));
      subs.add(informer.run$.subscribe());
      await advance(10);
      expect(informer.hasSynced()).toBe(true);
      expect(monitor.failing()).toEqual([]);

      // From frame 10 on, every watch request fails; the open watch ends.
      cluster.faults.failNext({ watch: true, code: 500, message: 'etcd leader changed', count: 10_000 });
      cluster.endWatches();
      const failingFrom = scheduler.now();
      await advance(DEFAULT_WATCH_FAILURE_THRESHOLD_MS - 1_000);
      expect(monitor.failing()).toEqual([]); // not yet: under the threshold

      await advance(2_000);
      const [failing, ...more] = monitor.failing();
      expect(more).toEqual([]);
      expect(failing).toMatchObject({ informer: informer.name, thresholdMs: 120_000 });
      expect(failing!.failingForMs).toBeGreaterThanOrEqual(120_000);
      expect(failing!.failingForMs).toBeLessThanOrEqual(scheduler.now() - failingFrom);
      expect(failing!.failures).toBeGreaterThan(3);
      expect(describeFailing(failing!)).toMatch(
        new RegExp(`^informer ${informer.name.replace('/', '\\/')}( \\(server [^)]+\\))?: list/watch failing for 12\\ds \\(threshold 120s\\), \\d+ failures, last error: .*etcd leader changed.*; the cache is stale$`),
      );

      // The server recovers: once the next watch delivers an event, the informer is healthy again.
      cluster.faults.clear();
      await advance(61_000); // the reflector's backoff (30 s, jittered up to twice that) ends, a watch opens
      cluster.create(cm('b'));
      await advance(10);
      expect(informer.store.has('default/b')).toBe(true);
      expect(monitor.failing()).toEqual([]);
      subs.unsubscribe();
    });
  });

  it('after recovery, a watch open 30 s without an error ends the failure, even on a quiet cluster', async () => {
    await virtualTime(async ({ cluster, scheduler, advance }) => {
      const monitor = new CacheMonitor({ logger: noopLogger, metrics: managerMetrics(), scheduler, watchFailureThresholdMs: 60_000 });
      const informer = cluster.informers().configMaps({ namespace: 'default' });
      const subs = new Subscription();
      subs.add(monitor.track({ name: 'cache', informers: [informer] }));
      subs.add(informer.run$.subscribe());
      await advance(10);
      cluster.faults.failNext({ watch: true, code: 503, count: 10_000 });
      cluster.endWatches();
      await advance(70_000);
      expect(monitor.failing().map((f) => [f.informer, f.thresholdMs])).toEqual([[informer.name, 60_000]]);
      cluster.faults.clear();
      await advance(60_000 + 35_000); // the longest backoff (30 s, jittered to under twice that), then 30 s of a working watch
      expect(monitor.failing()).toEqual([]);
      subs.unsubscribe();
    });
  });

  it('a watch cut with an error before it worked 30 s does not end the failure; one that worked 30 s does', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const at = (ms: number): void => {
      scheduler.schedule(() => undefined, ms - scheduler.now());
      scheduler.flush();
    };
    const status$ = new Subject<ReflectorStatus>();
    const informer = {
      name: 'Pod/default',
      status$,
      errors$: new Subject<Error>(),
      handled$: new Subject(),
      lastEventAt: undefined,
      backlogs: () => new Map(),
      lastSyncResourceVersion: '',
      synced$: new BehaviorSubject(true),
      hasSynced: () => true,
      store: { size: 0 },
    } as unknown as SharedInformer;
    const monitor = new CacheMonitor({ logger: noopLogger, metrics: managerMetrics(), scheduler, watchFailureThresholdMs: 60_000 });
    const sub = monitor.track({ name: 'cache', informers: [informer] });
    const cut = new Error('connection reset by peer');
    status$.next({ type: 'watching', resourceVersion: '1', timeoutSeconds: 300 });
    for (let t = 10_000; t <= 70_000; t += 20_000) {
      at(t);
      status$.next({ type: 'error', error: cut, action: 'rewatch' }); // cut after 20 s (10 s the first time)
      status$.next({ type: 'watching', resourceVersion: '1', timeoutSeconds: 300 });
    }
    at(75_000);
    expect(monitor.failing()).toEqual([{ informer: 'Pod/default', failingForMs: 65_000, thresholdMs: 60_000, failures: 4, lastError: cut, lastStatus: 'watching' }]);
    at(100_000); // the watch opened at 70 s has worked 30 s
    expect(monitor.failing()).toEqual([]);
    sub.unsubscribe();
  });

  it('watchFailureThresholdMs 0 turns it off', async () => {
    await virtualTime(async ({ cluster, scheduler, advance }) => {
      const monitor = new CacheMonitor({ logger: noopLogger, metrics: managerMetrics(), scheduler, watchFailureThresholdMs: 0 });
      const informer = cluster.informers().configMaps({ namespace: 'default' });
      const subs = new Subscription();
      subs.add(monitor.track({ name: 'cache', informers: [informer] }));
      subs.add(informer.run$.subscribe());
      await advance(10);
      cluster.faults.failNext({ watch: true, code: 500, count: 10_000 });
      cluster.endWatches();
      await advance(600_000);
      expect(monitor.failing()).toEqual([]);
      subs.unsubscribe();
    });
  });
});

describe('manager /readyz: the check `informers`', () => {
  it('goes red past the threshold with the reason, and green again after recovery', async () => {
    await virtualTime(async ({ cluster, scheduler, advance }) => {
      cluster.seed([cm('a')]);
      const mgr = manager({ client: cluster.client, scheduler, health: { host: '127.0.0.1', port: 0 }, processMetrics: false, logLevel: 'off', watchFailureThresholdMs: 60_000 });
      const informers = cluster.informers();
      const configMaps = informers.configMaps({ namespace: 'default' });
      mgr.add(informers.runnable());
      const ac = new AbortController();
      const done = mgr.start(ac.signal);
      await advance(10);
      const { port } = await mgr.healthAddress();
      const readyz = async (): Promise<[number, string]> => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
        return [res.status, await res.text()];
      };
      expect(await readyz()).toEqual([200, '[+]cache-sync ok\n[+]informers ok\nhealthz check passed\n']);

      cluster.faults.failNext({ watch: true, code: 500, message: 'etcd leader changed', count: 10_000 });
      cluster.endWatches();
      await advance(50_000);
      expect((await readyz())[1]).toContain('[+]informers ok\n'); // failing, but for less than 60 s
      await advance(20_000);
      const [status, body] = await readyz();
      expect(status).toBe(500);
      expect(body).toMatch(new RegExp(`\\[-\\]informers failed: informers are failing: informer ${configMaps.name.replace('/', '\\/')} \\(server [^)]+\\): list/watch failing for \\d+s \\(threshold 60s\\), \\d+ failures, last error: .*etcd leader changed.*; the cache is stale\\nhealthz check failed\\n$`, 'm'));

      cluster.faults.clear();
      await advance(61_000); // the backoff ends and a watch opens
      cluster.create(cm('b')); // its event proves the watch works
      await advance(10);
      expect(await readyz()).toEqual([200, '[+]cache-sync ok\n[+]informers ok\nhealthz check passed\n']);
      ac.abort();
      await advance(1_000);
      await done;
    });
  });
});

describe('describeFailing: one line per informer', () => {
  it('puts an error whose message carries a hint on later lines on one line', () => {
    const lastError = new Error('pods is forbidden (GET https://10.0.0.1/api/v1/pods)\nhint: grant list and watch on pods');
    const line = describeFailing({ informer: 'Pod', failingForMs: 130_000, thresholdMs: 120_000, failures: 9, lastError });
    expect(line).not.toContain('\n');
    expect(line).toContain('pods is forbidden (GET https://10.0.0.1/api/v1/pods); hint: grant list and watch on pods');
  });
});
