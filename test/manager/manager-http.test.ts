import { describe, expect, it } from 'vitest';
import { CheckerAfterStartError } from '../../src/manager/manager-errors.js';
import { manager } from '../../src/manager/manager.js';

async function get(port: number, path: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

describe('manager HTTP endpoints (real sockets)', () => {
  it('serves /healthz, /readyz (ready once caches synced) and /metrics, then closes them on stop', async () => {
    const mgr = manager({ health: { host: '127.0.0.1', port: 0 }, metrics: { host: '127.0.0.1', port: 0 } });
    let releaseSync!: (v: boolean) => void;
    const synced = new Promise<boolean>((r) => (releaseSync = r));
    mgr.add({ name: 'cache', start: (s) => new Promise<void>((r) => s.addEventListener('abort', () => r())), waitForSync: () => synced });
    mgr.addHealthzCheck('alive', () => undefined);
    mgr.addReadyzCheck('db', () => undefined);
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    const health = await mgr.healthAddress();
    const metricsPort = (await mgr.metricsAddress()).port;

    expect(await get(health.port, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    const notReady = await get(health.port, '/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toBe('[-]cache-sync failed: caches are not synced: cache cache has not synced\n[+]db ok\n[+]informers ok\nhealthz check failed\n');
    expect(await get(health.port, '/readyz/cache-sync')).toEqual({
      status: 500,
      body: 'internal server error: caches are not synced: cache cache has not synced\n',
      type: 'text/plain; charset=utf-8',
    });

    releaseSync(true);
    await mgr.elected();
    expect(await get(health.port, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(health.port, '/readyz?verbose')).toMatchObject({ body: '[+]cache-sync ok\n[+]db ok\n[+]informers ok\nhealthz check passed\n' });
    expect((await get(health.port, '/healthz/nope')).status).toBe(404);
    expect((await get(health.port, '/other')).status).toBe(404);

    mgr.metrics.controller.init('rs', 2);
    const m = await get(metricsPort, '/metrics');
    expect(m.status).toBe(200);
    expect(m.type).toContain('text/plain');
    expect(m.body).toContain('controller_runtime_max_concurrent_reconciles{controller="rs"} 2');
    expect(m.body).toContain('# TYPE controller_runtime_reconcile_total counter');

    expect(() => mgr.addHealthzCheck('late', () => undefined)).toThrow(CheckerAfterStartError);
    expect(() => mgr.addReadyzCheck('late', () => undefined)).toThrow('unable to add new checker because healthz endpoint has already been created');

    ac.abort();
    await done;
    await expect(fetch(`http://127.0.0.1:${health.port}/healthz`)).rejects.toThrow();
  });

  it('fails start with the listen error when the port is taken', async () => {
    const first = manager({ health: { host: '127.0.0.1', port: 0 } });
    const ac1 = new AbortController();
    const run1 = first.start(ac1.signal);
    const { port } = await first.healthAddress();
    const second = manager({ health: { host: '127.0.0.1', port } });
    await expect(second.start(new AbortController().signal)).rejects.toThrow(/health probes server failed: .*EADDRINUSE/);
    ac1.abort();
    await run1;
  });

  it('serves custom endpoint paths and the ping check when no liveness checks exist', async () => {
    const mgr = manager({ health: { host: '127.0.0.1', port: 0, livenessEndpoint: '/live', readinessEndpoint: '/ready', cacheSyncCheck: false, informerFailureCheck: false } });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    const { port } = await mgr.healthAddress();
    expect(await get(port, '/live/ping')).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(port, '/ready?verbose')).toMatchObject({ status: 200, body: '[+]ping ok\nhealthz check passed\n' });
    ac.abort();
    await done;
  });
});
