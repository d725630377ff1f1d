import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import { startApiServer } from '@rxkube/testkit';
import { activeResources, eventually, settleTo } from './resources.js';

/**
 * Resource hygiene of the embedded API server: close() with clients connected, watches open
 * (bookmark timers running), frozen watches, pending latency and after a restart leaves no
 * listener, socket or timer in the process.
 */
describe('hygiene: embedded API server close()', () => {
  it('close() with open watches, bookmarks, frozen streams and delayed requests leaves nothing', async () => {
    const baseline = activeResources();
    const server = await startApiServer({ bookmarkIntervalMs: 10, tls: true, token: true });
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const subs = [0, 1, 2].map(() => listWatch(client.listWatcher({ apiVersion: 'v1', kind: 'ConfigMap' }), { backoff: { initialMs: 5, maxMs: 10 } }).subscribe({ error: () => undefined }));
    expect(await eventually(() => server.openWatches() === 3)).toBe(true);
    server.faults.freezeWatches();
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'queued', namespace: 'default' } });
    server.faults.latency(10_000, { path: '/api/v1/namespaces' });
    const pending = fetch(`${server.url}/api/v1/namespaces`, { headers: { authorization: `Bearer ${server.token ?? ''}` } }).catch(() => undefined);
    await server.close();
    for (const s of subs) s.unsubscribe();
    client.close();
    await pending;
    expect(await settleTo(baseline, 15_000)).toEqual([]);
  });

  it('restart() then close() leaves nothing', async () => {
    const baseline = activeResources();
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const sub = listWatch(client.listWatcher({ apiVersion: 'v1', kind: 'ConfigMap' }), { backoff: { initialMs: 5, maxMs: 10 } }).subscribe({ error: () => undefined });
    expect(await eventually(() => server.openWatches() === 1)).toBe(true);
    await server.faults.restart(20);
    expect(await eventually(() => server.openWatches() === 1)).toBe(true);
    sub.unsubscribe();
    client.close();
    await server.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('many start/close cycles leave nothing', async () => {
    const baseline = activeResources();
    for (let i = 0; i < 20; i++) {
      const server = await startApiServer({ bookmarkIntervalMs: 5 });
      await server.close();
    }
    expect(await settleTo(baseline)).toEqual([]);
  });
});
