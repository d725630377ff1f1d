import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InformerFactory, KubeClient, resources } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

describe('embedded API server: watch-cache semantics', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 50 });
    call = makeClient(server.url);
    server.seed(Array.from({ length: 30 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(2, '0')}`, namespace: 'default', labels: { app: i % 2 === 0 ? 'a' : 'b' } } })));
  });
  afterAll(() => server.close());

  it('regression: a watch with a label selector gets a BOOKMARK while only non-matching objects change', async () => {
    const w = await openWatch(server.url, `${cms}?watch=1&allowWatchBookmarks=true&labelSelector=app%3Dselected&resourceVersion=${server.resourceVersion}`);
    // Only objects outside the selector change, in the watched resource and namespace.
    await call('PATCH', `${cms}/cm-01`, { data: { x: '1' } }, 'application/merge-patch+json');
    await call('PATCH', `${cms}/cm-02`, { data: { x: '2' } }, 'application/merge-patch+json');
    const [b] = await w.next();
    expect(b).toMatchObject({ type: 'BOOKMARK', object: { kind: 'ConfigMap' } });
    expect(Number(b?.object.metadata?.resourceVersion)).toBe(server.resourceVersion);
    w.close();
  });

  it('a list at resourceVersion=0 comes whole in one response: limit ignored, no continue', async () => {
    const r = await call('GET', `${cms}?limit=5&resourceVersion=0`);
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(30);
    expect(r.body.metadata.continue).toBeUndefined();
    expect(r.body.metadata.remainingItemCount).toBeUndefined();
    // Other resourceVersions still page.
    const paged = await call('GET', `${cms}?limit=5`);
    expect(paged.body.items).toHaveLength(5);
    expect(typeof paged.body.metadata.continue).toBe('string');
    // resourceVersionMatch=NotOlderThan with 0 is the same cache read.
    const nto = await call('GET', `${cms}?limit=5&resourceVersion=0&resourceVersionMatch=NotOlderThan`);
    expect(nto.body.items).toHaveLength(30);
    // A continue token with resourceVersion=0 still pages.
    const next = await call('GET', `${cms}?limit=5&resourceVersion=0&continue=${encodeURIComponent(paged.body.metadata.continue as string)}`);
    expect(next.body.items).toHaveLength(5);
  });

  it('an informer\'s first list of 1200 objects (limit 500, resourceVersion 0) is one request', async () => {
    const big = await startApiServer();
    const client = KubeClient.fromKubeConfig(big.kubeConfig);
    try {
      big.seed(Array.from({ length: 1200 }, (_, i) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}`, namespace: 'default' } })));
      const informers = new InformerFactory(client, { listWatch: { streamingList: false } }); // the paged list is what this test is about
      const secrets = informers.for(resources.secrets);
      informers.start();
      expect(await informers.waitForCacheSync(10_000)).toBe(true);
      expect(secrets.store.size).toBe(1200);
      expect(big.requests.count({ resourceId: '/secrets', watch: false })).toBe(1);
      informers.stop();
    } finally {
      client.close();
      await big.close();
    }
  });

  it('pageResourceVersionZeroLists keeps paging resourceVersion=0 lists (for benchmarks)', async () => {
    const paging = await startApiServer({ pageResourceVersionZeroLists: true });
    try {
      paging.seed(Array.from({ length: 12 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `p-${i}`, namespace: 'default' } })));
      const r = await makeClient(paging.url)('GET', `${cms}?limit=5&resourceVersion=0`);
      expect(r.body.items).toHaveLength(5);
      expect(typeof r.body.metadata.continue).toBe('string');
    } finally {
      await paging.close();
    }
  });
});
