import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

interface Item { metadata: { name: string; namespace?: string; resourceVersion: string } }

describe('embedded API server: lists', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;

  beforeAll(async () => {
    server = await startApiServer({ historyWindow: 1000 });
    call = makeClient(server.url);
    server.seed([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }]);
    const pods = [];
    for (let i = 0; i < 25; i++) {
      pods.push({
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: `p${String(i).padStart(2, '0')}`, namespace: i % 5 === 0 ? 'other' : 'default', labels: { app: i % 2 === 0 ? 'even' : 'odd', tier: i < 10 ? 'front' : 'back', ...(i === 3 ? { special: 'yes' } : {}) } },
        spec: { nodeName: `n${i % 3}`, containers: [{ name: 'main', image: 'busybox' }] },
        status: { phase: i % 4 === 0 ? 'Running' : 'Pending' },
      });
    }
    server.seed(pods);
  });
  afterAll(() => server.close());

  const names = (r: { body: { items: Item[] } }) => r.body.items.map((i) => i.metadata.name);

  it('pages with limit and opaque continue tokens over one consistent snapshot', async () => {
    const first = await call('GET', '/api/v1/pods?limit=10');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(10);
    expect(first.body.metadata.remainingItemCount).toBe(15);
    const rv = first.body.metadata.resourceVersion;
    // a write between pages does not show up in later pages
    server.seed([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'zz-late', namespace: 'default' }, spec: { containers: [{ name: 'main', image: 'busybox' }] } }]);
    const seen: string[] = names(first);
    let token: string | undefined = first.body.metadata.continue;
    while (token !== undefined) {
      const page = await call('GET', `/api/v1/pods?limit=10&continue=${encodeURIComponent(token)}`);
      expect(page.status).toBe(200);
      expect(page.body.metadata.resourceVersion).toBe(rv);
      seen.push(...names(page));
      token = page.body.metadata.continue;
    }
    expect(seen).toHaveLength(25);
    expect(seen).not.toContain('zz-late');
    server.delete('v1', 'Pod', 'zz-late', 'default');
  });

  it('label selectors: =, ==, !=, in, notin, exists, !', async () => {
    const q = async (sel: string) => names(await call('GET', `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(sel)}`)).length;
    expect(await q('app=even')).toBe(10);
    expect(await q('app==even')).toBe(10);
    expect(await q('app!=even')).toBe(10);
    expect(await q('tier in (front),app=odd')).toBe(4);
    expect(await q('tier notin (front)')).toBe(12);
    expect(await q('special')).toBe(1);
    expect(await q('!special')).toBe(19);
    expect(await q('app in (even, odd)')).toBe(20);
  });

  it('field selectors: metadata.name, metadata.namespace, spec.nodeName, status.phase', async () => {
    expect(names(await call('GET', '/api/v1/pods?fieldSelector=metadata.name=p03'))).toEqual(['p03']);
    expect(names(await call('GET', '/api/v1/pods?fieldSelector=metadata.namespace=other'))).toHaveLength(5);
    expect(names(await call('GET', '/api/v1/pods?fieldSelector=spec.nodeName=n0,status.phase=Running'))).toEqual(['p12', 'p24', 'p00']); // sorted by namespace/name, as etcd keys
    expect(names(await call('GET', '/api/v1/pods?fieldSelector=status.phase!=Running'))).toHaveLength(18);
  });

  it('selectors with limit page over matching objects only (no remainingItemCount)', async () => {
    const first = await call('GET', '/api/v1/pods?labelSelector=app%3Deven&limit=5');
    expect(first.body.items).toHaveLength(5);
    expect(first.body.metadata.remainingItemCount).toBeUndefined();
    const second = await call('GET', `/api/v1/pods?labelSelector=app%3Deven&limit=5&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    const third = await call('GET', `/api/v1/pods?labelSelector=app%3Deven&limit=5&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    expect([...names(first), ...names(second), ...names(third)]).toHaveLength(13);
    expect(third.body.metadata.continue).toBeUndefined();
  });

  it('resourceVersionMatch=Exact lists the past; NotOlderThan in the future is 504 Too large', async () => {
    const before = server.resourceVersion;
    server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later', namespace: 'default' } }]);
    const past = await call('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${before}&resourceVersionMatch=Exact`);
    expect(past.status).toBe(200);
    expect(past.body.metadata.resourceVersion).toBe(String(before));
    expect(names(past)).not.toContain('later');
    const now = await call('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${before}&resourceVersionMatch=NotOlderThan`);
    expect(names(now)).toContain('later');
    const future = await call('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${server.resourceVersion + 100}&resourceVersionMatch=NotOlderThan`);
    expect(future.status).toBe(504);
    expect(future.body.reason).toBe('Timeout');
    expect(future.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
    const bad = await call('GET', '/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact');
    expect(bad.status).toBe(422);
  });

  it('an expired continue token gives 410 Expired after compaction', async () => {
    const first = await call('GET', '/api/v1/pods?limit=3');
    server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bump', namespace: 'default' } }]);
    server.faults.compact();
    const next = await call('GET', `/api/v1/pods?limit=3&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(next.status).toBe(410);
    expect(next.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    const exact = await call('GET', `/api/v1/pods?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.body.reason).toBe('Expired');
    const garbage = await call('GET', '/api/v1/pods?limit=3&continue=garbage');
    expect(garbage.status).toBe(400);
  });

  it('serves a 100k-object list in pages', async () => {
    const big = await startApiServer();
    try {
      const objs = [];
      for (let i = 0; i < 100_000; i++) objs.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i) } });
      big.seed(objs);
      const c = makeClient(big.url);
      let token: string | undefined;
      let count = 0;
      let pages = 0;
      const t0 = performance.now();
      do {
        const r = await c('GET', `/api/v1/namespaces/default/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
        count += r.body.items.length;
        pages++;
        token = r.body.metadata.continue;
      } while (token !== undefined);
      const ms = performance.now() - t0;
      console.log(`[throughput] 100k-object list in ${pages} pages of 500: ${ms.toFixed(0)} ms (${Math.round(count / (ms / 1000))} objects/s)`);
      expect(count).toBe(100_000);
    } finally {
      await big.close();
    }
  });
});
