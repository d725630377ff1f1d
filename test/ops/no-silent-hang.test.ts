/**
 * No silent hang: against an unreachable server, or for a kind the server does not serve, a
 * manager's start() rejects within its cache-sync timeout with an error naming each unsynced
 * informer, the server and the cause; the informer's errors$ carries the failures as they happen;
 * /readyz says why it is not ready; the failures are logged (rate-limited).
 */
import { createServer } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { ListWatchError } from '../../src/informer/list-watch-error.js';
import { jsonLogger } from '../../src/logging/json-logger.js';
import { ManagerCacheSyncTimeoutError } from '../../src/manager/index.js';
import { manager } from '../../src/manager/manager.js';

import { useEmbeddedServer } from '../helpers/embedded-server.js';

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const address = srv.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'x' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('manager against an unreachable server', () => {
  let client: KubeClient;
  let port: number;
  const records: Record<string, unknown>[] = [];
  let outcome: unknown;
  let elapsedMs = 0;
  let readyz = '';
  const informerErrors: Error[] = [];

  beforeAll(async () => {
    port = await closedPort();
    client = KubeClient.fromKubeConfig(kubeConfigFor(`https://127.0.0.1:${port}`));
    const factory = new InformerFactory(client, { namespace: 'default', listWatch: { backoff: { initialMs: 50, maxMs: 200 } } });
    const cms = factory.configMaps();
    cms.errors$.subscribe((e) => informerErrors.push(e));
    const ctrl = controller({ name: 'unreachable-cm', for: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }, informers: factory, reconcile: () => undefined });
    const mgr = manager({
      client,
      cacheSyncTimeoutMs: 1_500,
      health: { host: '127.0.0.1', port: 0 },
      logger: jsonLogger({ write: (l) => records.push(JSON.parse(l) as Record<string, unknown>), level: 'debug' }),
    });
    mgr.add(factory.runnable());
    mgr.add(ctrl);
    const started = Date.now();
    const done = mgr.start().then(
      () => 'resolved',
      (e: unknown) => e,
    );
    const health = await mgr.healthAddress();
    await new Promise((r) => setTimeout(r, 600));
    readyz = await (await fetch(`http://127.0.0.1:${health.port}/readyz`)).text();
    outcome = await done;
    elapsedMs = Date.now() - started;
  }, 30_000);

  afterAll(() => client?.close());

  it('start() rejects within the sync timeout, naming the informer, the server and the cause', () => {
    expect(outcome).toBeInstanceOf(ManagerCacheSyncTimeoutError);
    const err = outcome as ManagerCacheSyncTimeoutError;
    expect(err.code).toBe('MANAGER_CACHE_SYNC_TIMEOUT');
    expect(err.message).toContain('caches did not sync within 1.5s');
    expect(err.message).toContain(`informer ConfigMap/default (server https://127.0.0.1:${port})`);
    expect(err.message).toContain('ECONNREFUSED');
    expect(elapsedMs).toBeGreaterThanOrEqual(1_400);
    expect(elapsedMs).toBeLessThan(5_000);
  });

  it("the informer's errors$ carries every failed (streaming) list as a ListWatchError", () => {
    expect(informerErrors.length).toBeGreaterThanOrEqual(2);
    expect(informerErrors[0]).toBeInstanceOf(ListWatchError);
    expect(informerErrors[0]?.message).toMatch(/^informer ConfigMap\/default: GET \/api\/v1\/namespaces\/default\/configmaps: connect ECONNREFUSED .* \(retrying the streaming list\)$/);
  });

  it('/readyz names the failed check and why', () => {
    expect(readyz).toContain(`[-]cache-sync failed: caches are not synced: informer ConfigMap/default (server https://127.0.0.1:${port}): last error: GET /api/v1/namespaces/default/configmaps: connect ECONNREFUSED`);
  });

  it('logs the first failure at once and then rate-limits, and logs the timeout', () => {
    const failures = records.filter((r) => r['msg'] === 'list/watch failed, retrying');
    expect(failures.length).toBe(1); // many failures within 1.5 s, one line per 30 s
    expect(failures[0]).toMatchObject({ level: 'warn', informer: 'ConfigMap/default', server: `https://127.0.0.1:${port}` });
    expect(JSON.stringify(failures[0]?.['err'])).toContain('ECONNREFUSED');
    expect(records.some((r) => r['msg'] === 'caches did not sync in time, stopping' && r['level'] === 'error')).toBe(true);
  });
});

describe('manager with a kind the server does not serve', () => {
  let client: KubeClient;

  useEmbeddedServer((_server, c) => {
    client = c;
  });

  it('start() rejects within the sync timeout, naming the kind the server does not serve', async () => {
    const factory = new InformerFactory(client, { namespace: 'default', listWatch: { backoff: { initialMs: 50, maxMs: 200 } } });
    const widgets = { apiVersion: 'example.com/v1', kind: 'Widget' };
    factory.for(widgets);
    factory.configMaps();
    const mgr = manager({ client, cacheSyncTimeoutMs: 1_000, logLevel: 'off' });
    mgr.add(factory.runnable());
    const started = Date.now();
    const err = await mgr.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ManagerCacheSyncTimeoutError);
    const message = (err as Error).message;
    expect(message).toMatch(/informer Widget\/default \(server http:\/\/127\.0\.0\.1:\d+\): last error: the server serves no kind Widget in example\.com\/v1/);
    expect(message).not.toContain('ConfigMap'); // that one synced
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe('an informer factory on its own against an unreachable server', () => {
  it('waitForCacheSync returns false, and unsynced() says which informer and why', async () => {
    const port = await closedPort();
    const client = KubeClient.fromKubeConfig(kubeConfigFor(`https://127.0.0.1:${port}`));
    const factory = new InformerFactory(client, { namespace: 'default', listWatch: { backoff: { initialMs: 20, maxMs: 50 } } });
    factory.configMaps();
    factory.start();
    try {
      expect(await factory.waitForCacheSync(500)).toBe(false);
      const [only, ...rest] = factory.unsynced();
      expect(rest).toEqual([]);
      expect(only?.informer).toBe('ConfigMap/default');
      expect(only?.lastError).toBeInstanceOf(ListWatchError);
      expect(only?.lastError?.message).toContain('ECONNREFUSED');
    } finally {
      factory.stop();
      client.close();
    }
  });
});
