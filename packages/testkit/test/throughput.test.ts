/**
 * Measures (and prints) the embedded server's speed. No timed assertions: the numbers go to the
 * log (`[throughput] ...`) and into the closing notes; the test only checks completeness.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const N = 100_000;

/** Opens a watch and resolves with the time at which `n` lines arrived. */
function countLines(url: string, n: number): { ready: Promise<void>; done: Promise<number> } {
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  const done = new Promise<number>((resolve, reject) => {
    const req = request(url, (res) => {
      readyResolve();
      let lines = 0;
      res.on('data', (c: Buffer) => {
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        if (lines >= n) {
          resolve(performance.now());
          req.destroy();
        }
      });
      res.on('error', reject);
    });
    req.on('error', (e) => (e.message.includes('aborted') || e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
  return { ready, done };
}

function cm(i: number) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default', labels: { app: 'bench' } }, data: { index: String(i), payload: 'x'.repeat(64) } };
}

describe('throughput (prints numbers, no timing assertions)', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ historyWindow: 2 * N + 10 });
  });
  afterAll(() => server.close());

  it('streams live watch events to one client', async () => {
    const rv = server.resourceVersion;
    const w = countLines(`${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, N);
    await w.ready;
    const t0 = performance.now();
    // Writes in batches of 1000, yielding between batches so the server can flush.
    for (let b = 0; b < N; b += 1000) {
      const batch = [];
      for (let i = b; i < b + 1000; i++) batch.push(cm(i));
      server.seed(batch);
      await new Promise((r) => setImmediate(r));
    }
    const t1 = await w.done;
    const rate = Math.round(N / ((t1 - t0) / 1000));
    console.log(`[throughput] live watch: ${N} events (writes included) in ${(t1 - t0).toFixed(0)} ms = ${rate} events/s`);
    expect(server.list('v1', 'ConfigMap', 'default')).toHaveLength(N);
  });

  it('fans live events out to 10 watchers', async () => {
    const M = 20_000;
    const rv = server.resourceVersion;
    const ws = Array.from({ length: 10 }, () => countLines(`${server.url}/api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=${rv}`, M));
    await Promise.all(ws.map((w) => w.ready));
    server.seed([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fan' } }]);
    const t0 = performance.now();
    for (let b = 0; b < M; b += 1000) {
      const batch = [];
      for (let i = b; i < b + 1000; i++) batch.push({ ...cm(i), metadata: { ...cm(i).metadata, namespace: 'fan' } });
      server.seed(batch);
      await new Promise((r) => setImmediate(r));
    }
    const t1 = Math.max(...(await Promise.all(ws.map((w) => w.done))));
    console.log(`[throughput] fan-out: ${M} events to each of 10 watchers in ${(t1 - t0).toFixed(0)} ms = ${Math.round((10 * M) / ((t1 - t0) / 1000))} deliveries/s`);
    expect(server.list('v1', 'ConfigMap', 'fan')).toHaveLength(M);
  });

  it('replays watch events from history to one client', async () => {
    const t0 = performance.now();
    const w = countLines(`${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1`, N);
    const t1 = await w.done;
    console.log(`[throughput] watch replay from history: ${N} events in ${(t1 - t0).toFixed(0)} ms = ${Math.round(N / ((t1 - t0) / 1000))} events/s`);
  });

  it('sends the initial state of a 100k watch (resourceVersion unset) to one client', async () => {
    const t0 = performance.now();
    const w = countLines(`${server.url}/api/v1/namespaces/default/configmaps?watch=1`, N);
    const t1 = await w.done;
    console.log(`[throughput] initial ADDED events: ${N} in ${(t1 - t0).toFixed(0)} ms = ${Math.round(N / ((t1 - t0) / 1000))} events/s`);
  });

  it('seeds 100k objects directly', async () => {
    const other = await startApiServer();
    try {
      const objs = Array.from({ length: N }, (_, i) => cm(i));
      const t0 = performance.now();
      other.seed(objs);
      const ms = performance.now() - t0;
      console.log(`[throughput] seed(): ${N} objects in ${ms.toFixed(0)} ms = ${Math.round(N / (ms / 1000))} objects/s`);
      expect(other.list('v1', 'ConfigMap', 'default')).toHaveLength(N);
    } finally {
      await other.close();
    }
  });

  it('serves the 100k-object list in pages of 500', async () => {
    let token: string | undefined;
    let count = 0;
    let pages = 0;
    const t0 = performance.now();
    do {
      const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      const body = (await res.json()) as { items: unknown[]; metadata: { continue?: string } };
      count += body.items.length;
      pages++;
      token = body.metadata.continue;
    } while (token !== undefined);
    const ms = performance.now() - t0;
    console.log(`[throughput] paged list: ${count} objects in ${pages} pages in ${ms.toFixed(0)} ms = ${Math.round(count / (ms / 1000))} objects/s`);
    expect(count).toBe(N);
    const t2 = performance.now();
    const all = (await (await fetch(`${server.url}/api/v1/namespaces/default/configmaps`)).json()) as { items: unknown[] };
    console.log(`[throughput] unpaged list: ${all.items.length} objects in ${(performance.now() - t2).toFixed(0)} ms`);
  });
});
