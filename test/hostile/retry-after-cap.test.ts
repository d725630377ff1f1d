/**
 * Hostile server, finding 6: `Retry-After: 86400` made the informer wait 32.6 h with a stale cache
 * while `/readyz` said 200. Now the wait is capped (`maxRetryAfterMs`, default 60 s), and while a
 * long wait lasts `/readyz` fails naming the informer and the wait, and
 * `reflector_backoff_seconds{name}` shows it.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { manager } from '../../src/manager/manager.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { json, pod, podList, startFakeApiServer } from './fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe('hostile: Retry-After of a day', () => {
  it('waits at most 60 s, and the wait shows in /readyz and in reflector_backoff_seconds', async () => {
    const server = await startFakeApiServer((_req, res, seen) => {
      if (seen.query.get('watch') !== 'true') return json(res, 200, podList([pod('a', '5')], '5'));
      json(res, 429, { kind: 'Status', status: 'Failure', code: 429, reason: 'TooManyRequests', message: 'come back tomorrow' }, { 'retry-after': '86400' });
    });
    cleanup.push(() => server.close());
    const client = KubeClient.fromKubeConfig(server.kubeConfig, { retry: false });
    cleanup.push(() => client.close());
    const factory = new InformerFactory(client, { namespace: 'default', listWatch: { streamingList: false } });
    const pods = factory.for(resources.pods);
    const mgr = manager({ client, logLevel: 'off', health: { host: '127.0.0.1', port: 0 }, metrics: { host: '127.0.0.1', port: 0 } });
    mgr.add(factory.runnable());
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    cleanup.push(async () => {
      stop.abort();
      await done.catch(() => undefined);
    });
    const wait = firstValueFrom(
      pods.status$.pipe(
        filter((s): s is Extract<ReflectorStatus, { type: 'backingOff' }> => s.type === 'backingOff'),
        timeout(10_000),
      ),
    );
    await mgr.elected();
    const backingOff = await wait;
    expect(backingOff.delayMs).toBeLessThanOrEqual(60_000);
    expect(backingOff.delayMs).toBeGreaterThanOrEqual(1_000);

    const health = await mgr.healthAddress();
    const readyz = await get(health.port, '/readyz/cache-sync');
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain(`informer ${pods.name}`);
    expect(readyz.body).toMatch(/waiting 60s before rewatch \(\d+s left\), the cache may be stale/);
    expect(readyz.body).toContain('come back tomorrow');

    const metrics = await get((await mgr.metricsAddress()).port, '/metrics');
    expect(metrics.body).toMatch(new RegExp(`reflector_backoff_seconds\\{name="${pods.name}"\\} 60\\b`));
  });
});
