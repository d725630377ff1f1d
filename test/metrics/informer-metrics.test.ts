/**
 * Per-informer and per-subscriber pipeline metrics (informer_*), fed by the manager's cache
 * monitor: objects, approximate bytes, watch restarts, last event age; each subscriber's backlog
 * and handler latency. In virtual time, on the in-process API server.
 */
import { Subscription, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { virtualTime } from '../../packages/testkit/src/virtual-time.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { CacheMonitor } from '../../src/manager/cache-monitor.js';
import { resourceVersionValue } from '../../src/metrics/informer-metrics.js';
import { managerMetrics } from '../../src/metrics/metrics-registry.js';
import { approximateStoreBytes, STORE_BYTES_SAMPLE } from '../../src/metrics/store-bytes-estimate.js';

const cm = (name: string, value = 'v'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data: { k: value } }) as KubeObject;

/** The value of one series in the exposition `text`, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('informer metrics', () => {
  it('objects, approximate bytes, watch restarts and last event age per informer', async () => {
    await virtualTime(async ({ cluster, scheduler, advance }) => {
      cluster.seed([cm('a'), cm('b', 'x'.repeat(1_000)), cm('c')]);
      const metrics = managerMetrics();
      const monitor = new CacheMonitor({ logger: noopLogger, metrics, scheduler });
      const informer = cluster.informers().configMaps({ namespace: 'default' });
      const subs = new Subscription();
      subs.add(monitor.track({ name: 'cache', informers: [informer] }));
      subs.add(informer.run$.subscribe());
      await advance(10);
      const n = `{name="${informer.name}"}`;

      let text = await metrics.text();
      expect(sample(text, `informer_store_items${n}`)).toBe(3);
      const exact = informer.store.list().reduce((sum, o) => sum + Buffer.byteLength(JSON.stringify(o)), 0);
      expect(sample(text, `informer_store_approximate_bytes${n}`)).toBe(exact); // 3 ≤ 32 objects: all sampled
      expect(exact).toBeGreaterThan(1_000);
      expect(sample(text, `informer_watch_restarts_total${n}`)).toBe(0);
      expect(sample(text, `informer_last_event_age_seconds${n}`)).toBeCloseTo(0.01, 6); // listed at 0

      await advance(5_000);
      cluster.create(cm('d'));
      await advance(2_500);
      text = await metrics.text();
      expect(sample(text, `informer_store_items${n}`)).toBe(4);
      expect(sample(text, `informer_last_event_age_seconds${n}`)).toBeCloseTo(2.5, 6);
      expect(sample(text, `informer_store_resource_version${n}`)).toBe(Number(cluster.resourceVersion)); // the create's

      cluster.endWatches(); // the watch ends: the reflector watches again
      await advance(60_000);
      text = await metrics.text();
      expect(sample(text, `informer_watch_restarts_total${n}`)).toBeGreaterThanOrEqual(1);

      subs.unsubscribe(); // untracked: its gauges are gone
      text = await metrics.text();
      expect(sample(text, `informer_store_items${n}`)).toBeUndefined();
    });
  });

  it('per subscriber: the backlog waiting and the time it took over each notification', async () => {
    await virtualTime(async ({ cluster, scheduler, advance }) => {
      cluster.seed([cm('a'), cm('b'), cm('c')]);
      const metrics = managerMetrics();
      const monitor = new CacheMonitor({ logger: noopLogger, metrics, scheduler });
      const informer = cluster.informers().configMaps({ namespace: 'default' });
      const subs = new Subscription();
      subs.add(monitor.track({ name: 'cache', informers: [informer] }));
      // a subscriber that takes 250 ms per notification, and a quick one
      subs.add(informer.listen({ name: 'slow', process: () => timer(250, scheduler) }).events$.subscribe());
      subs.add(informer.listen({ name: 'quick' }).events$.subscribe());
      await advance(100);
      const slow = `name="${informer.name}",handler="slow"`;
      const quick = `name="${informer.name}",handler="quick"`;

      let text = await metrics.text();
      expect(sample(text, `informer_pending_notifications{${slow}}`)).toBe(2); // a is in hand, b and c wait
      expect(sample(text, `informer_pending_notifications{${quick}}`)).toBe(0);
      await advance(1_000);
      text = await metrics.text();
      expect(sample(text, `informer_pending_notifications{${slow}}`)).toBe(0);
      expect(sample(text, `informer_processing_latency_seconds_count{${slow}}`)).toBe(3);
      expect(sample(text, `informer_processing_latency_seconds_sum{${slow}}`)).toBeCloseTo(0.75, 9);
      expect(sample(text, `informer_processing_latency_seconds_bucket{le="0.128",${slow}}`)).toBe(0);
      expect(sample(text, `informer_processing_latency_seconds_bucket{le="0.256",${slow}}`)).toBe(3);
      expect(sample(text, `informer_processing_latency_seconds_count{${quick}}`)).toBe(3);
      expect(sample(text, `informer_processing_latency_seconds_sum{${quick}}`)).toBe(0); // synchronous: no virtual time
      subs.unsubscribe();
    });
  });

  it('resourceVersion as a gauge value: its last 15 digits when numeric', () => {
    expect(resourceVersionValue('12345')).toBe(12345);
    expect(resourceVersionValue('98765432109876543210')).toBe(432109876543210);
    expect(resourceVersionValue('')).toBeUndefined();
    expect(resourceVersionValue('opaque-etcd3-token')).toBeUndefined();
  });

  it('approximate bytes: the mean of an even sample times the count, for any cache size', () => {
    const objects = new Map<string, object>();
    for (let i = 0; i < 1_000; i++) objects.set(`k${i}`, { i: i < 500 ? 'x' : 'xxx' }); // 9 or 11 bytes
    const store = { size: objects.size, listKeys: () => [...objects.keys()], get: (k: string) => objects.get(k) };
    // 32 samples spread evenly: 16 of each size → mean 10 bytes
    expect(STORE_BYTES_SAMPLE).toBe(32);
    expect(approximateStoreBytes(store as never)).toBe(10_000);
    expect(approximateStoreBytes({ size: 0, listKeys: () => [], get: () => undefined } as never)).toBe(0);
  });
});
