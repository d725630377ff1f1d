import { firstValueFrom, filter } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { informerSource } from '../../src/controller/informer-source.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { manager } from '../../src/manager/manager.js';
import { cacheRunnable } from '../../src/api/runnable.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { activeResources, eventually, settleTo } from './resources.js';

/**
 * Resource hygiene of the informer, the informer factory, a controller and the manager over HTTP:
 * after stop, the server sees no open watch and the process holds no extra socket, server or timer.
 */

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string): UnstructuredObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: name } });

const asSource = <T extends KubeObject>(informer: SharedInformer<T>) => informerSource(informer, { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true });

describe('hygiene: informer, factory, controller, manager', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 20 });
    server.seed(Array.from({ length: 30 }, (_, i) => cm(`c${i}`)));
  });
  afterAll(() => server.close());

  it('shared informer: three subscribers, resync, unsubscribe → no watch, no timer, no socket', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const informer = sharedInformer({ client, resource: CM, scope: { namespace: 'default' } }, { defaultResyncPeriodMs: 1_000 });
    const subs = [0, 1, 2].map((i) => informer.listen({ name: `s${i}`, resyncPeriodMs: 1_000 }).events$.subscribe());
    expect(await informer.waitForSync(10_000)).toBe(true);
    server.create(cm('live'));
    expect(await eventually(() => informer.store.list().length === 31)).toBe(true);
    for (const s of subs) s.unsubscribe();
    expect(await eventually(() => !informer.isRunning && server.openWatches() === 0)).toBe(true);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('informer factory: start/stop of several informers (with a stop grace) leaves nothing', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const factory = new InformerFactory(client, { namespace: 'default', stopGraceMs: 50 });
    factory.configMaps();
    factory.secrets();
    factory.pods({ labelSelector: 'app=x' });
    factory.start();
    expect(await factory.waitForCacheSync(10_000)).toBe(true);
    expect(await eventually(() => server.openWatches() === 3)).toBe(true);
    factory.stop();
    expect(await eventually(() => factory.list().every((i) => !i.isRunning) && server.openWatches() === 0)).toBe(true);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('controller: running reconciles with requeues, then abort → no watch, no timer, no socket', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const informer = sharedInformer({ client, resource: CM, scope: { namespace: 'default' } });
    let reconciles = 0;
    const c = controller({
      name: 'hygiene-http',
      for: asSource(informer),
      concurrency: 3,
      shutdownGracePeriodMs: 2_000,
      reconcile: async (req) => {
        reconciles++;
        await new Promise((r) => setTimeout(r, 2));
        if (req.name === 'c1') return { requeueAfter: 60_000 };
        if (req.name === 'c2') throw new Error('retry me');
        return undefined;
      },
    });
    const stop = new AbortController();
    const run = informer.run$.subscribe();
    const done = c.start(stop.signal);
    expect(await eventually(() => reconciles >= 30)).toBe(true);
    stop.abort();
    await done;
    run.unsubscribe();
    expect(await eventually(() => server.openWatches() === 0)).toBe(true);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('manager with health + metrics servers, an informer cache and a controller: stop leaves nothing', async () => {
    const baseline = activeResources();
    const mgr = manager({ kubeConfig: server.kubeConfig, health: { port: 0 }, metrics: { port: 0 }, gracefulShutdownTimeoutMs: 5_000 });
    const informer = sharedInformer({ client: mgr.client, resource: CM, scope: { namespace: 'default' } });
    mgr.add(cacheRunnable({ name: 'configmaps', source: informer.run$, synced$: informer.synced$ }));
    let reconciles = 0;
    mgr.add(controller({ name: 'hygiene-mgr', for: asSource(informer), reconcile: () => void reconciles++ }));
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const health = await mgr.healthAddress();
    const readyz = await fetch(`http://127.0.0.1:${health.port}/readyz`);
    await readyz.text();
    expect(await eventually(() => reconciles >= 30)).toBe(true);
    await firstValueFrom(informer.synced$.pipe(filter(Boolean)));
    stop.abort();
    await done;
    expect(await eventually(() => server.openWatches() === 0)).toBe(true);
    // No client.close(): stopping the manager alone must leave nothing that keeps the process alive
    // (idle keep-alive sockets are unref'd and not active resources).
    expect(await settleTo(baseline)).toEqual([]);
    mgr.client.close();
  });
});
