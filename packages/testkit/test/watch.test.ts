import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

describe('embedded API server: watch', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startApiServer({ historyWindow: 50, bookmarkIntervalMs: 50 });
    call = makeClient(server.url);
  });
  afterAll(() => server.close());

  it('streams chunked JSON lines: synthetic ADDED for the current state, then changes', async () => {
    await call('POST', cms, { metadata: { name: 'w-a' } });
    const w = await openWatch(server.url, `${cms}?watch=true`);
    expect(w.status).toBe(200);
    const [init] = await w.next();
    expect(init).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w-a' } } });
    const cur = (await call('GET', `${cms}/w-a`)).body;
    await call('PUT', `${cms}/w-a`, { ...cur, data: { x: 'y' } });
    await call('DELETE', `${cms}/w-a`);
    const events = await w.next(2);
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    expect(Number(events[1]?.object.metadata?.resourceVersion)).toBeGreaterThan(Number(events[0]?.object.metadata?.resourceVersion));
    w.close();
  });

  it('resumes from a resourceVersion without repeating or missing events', async () => {
    const a = (await call('POST', cms, { metadata: { name: 'w-b' } })).body;
    await call('PATCH', `${cms}/w-b`, { data: { n: '1' } }, 'application/merge-patch+json');
    await call('PATCH', `${cms}/w-b`, { data: { n: '2' } }, 'application/merge-patch+json');
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${a.metadata.resourceVersion}`);
    const events = await w.next(2);
    expect(events.map((e) => [e.type, (e.object as { data?: { n?: string } }).data?.n])).toEqual([['MODIFIED', '1'], ['MODIFIED', '2']]);
    w.close();
  });

  it('a resourceVersion older than the history window gives HTTP 200 then an ERROR event with 410 Expired', async () => {
    const old = server.resourceVersion;
    for (let i = 0; i < 60; i++) await call('POST', cms, { metadata: { name: `churn-${i}` } });
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${old}`);
    expect(w.status).toBe(200);
    const [e] = await w.next();
    expect(e).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(String(e?.object['message'])).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    await w.ended;
  });

  it('sends periodic BOOKMARKs only when allowWatchBookmarks=true and the resourceVersion moved', async () => {
    const idle = await openWatch(server.url, `${cms}?watch=1&allowWatchBookmarks=true&resourceVersion=${server.resourceVersion}&timeoutSeconds=1`);
    await idle.ended;
    expect(idle.all).toEqual([]); // nothing changed anywhere: no bookmark, as kube-apiserver
    const w = await openWatch(server.url, `${cms}?watch=1&allowWatchBookmarks=true&resourceVersion=${server.resourceVersion}`);
    await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'elsewhere' }, spec: { containers: [{ name: 'c', image: 'x' }] } }); // another resource
    const [b] = await w.next();
    expect(b).toMatchObject({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1' } });
    expect(Number(b?.object.metadata?.resourceVersion)).toBe(server.resourceVersion);
    w.close();
    const plain = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}&timeoutSeconds=1`);
    await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'elsewhere-2' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await plain.ended;
    expect(plain.all).toEqual([]);
  });

  it('timeoutSeconds ends the stream', async () => {
    const t0 = Date.now();
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}&timeoutSeconds=1`);
    await w.ended;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('sendInitialEvents=true streams the state then a bookmark annotated k8s.io/initial-events-end', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'sie' } });
    await call('POST', '/api/v1/namespaces/sie/configmaps', { metadata: { name: 'one' } });
    await call('POST', '/api/v1/namespaces/sie/configmaps', { metadata: { name: 'two' } });
    const w = await openWatch(server.url, '/api/v1/namespaces/sie/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=');
    const events = await w.next(3);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(events[2]?.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    w.close();
    const none = await openWatch(server.url, '/api/v1/namespaces/sie/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=1');
    await call('POST', '/api/v1/namespaces/sie/configmaps', { metadata: { name: 'three' } });
    await none.ended;
    expect(none.all.map((e) => `${e.type}:${String((e.object['metadata'] as { name?: string } | undefined)?.name)}`)).toEqual(['ADDED:three']); // no initial state
    const invalid = await call('GET', '/api/v1/namespaces/sie/configmaps?watch=1&sendInitialEvents=true');
    expect(invalid.status).toBe(422);
    expect(invalid.body.reason).toBe('Invalid');
  });

  it('selectors on watch: leaving the selector is DELETED, entering is ADDED', async () => {
    await call('POST', cms, { metadata: { name: 'sel', labels: { app: 'a' } } });
    const w = await openWatch(server.url, `${cms}?watch=1&labelSelector=app%3Da&resourceVersion=${server.resourceVersion}`);
    await call('PATCH', `${cms}/sel`, { metadata: { labels: { app: 'b' } } }, 'application/merge-patch+json');
    await call('PATCH', `${cms}/sel`, { metadata: { labels: { app: 'a' } } }, 'application/merge-patch+json');
    await call('PATCH', `${cms}/sel`, { data: { x: '1' } }, 'application/merge-patch+json');
    const events = await w.next(3);
    expect(events.map((e) => e.type)).toEqual(['DELETED', 'ADDED', 'MODIFIED']);
    expect(events[0]?.object.metadata?.['labels']).toEqual({ app: 'b' });
    w.close();
  });

  it('namespaced watches do not see other namespaces; cluster-wide watches see all', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'ns-w' } });
    const rv = server.resourceVersion;
    const mine = await openWatch(server.url, `/api/v1/namespaces/ns-w/configmaps?watch=1&resourceVersion=${rv}`);
    const all = await openWatch(server.url, `/api/v1/configmaps?watch=1&resourceVersion=${rv}`);
    await call('POST', cms, { metadata: { name: 'elsewhere' } });
    await call('POST', '/api/v1/namespaces/ns-w/configmaps', { metadata: { name: 'here' } });
    expect((await mine.next())[0]?.object.metadata?.name).toBe('here');
    expect((await all.next(2)).map((e) => e.object.metadata?.name)).toEqual(['elsewhere', 'here']);
    expect(server.openWatches('/configmaps')).toBe(2);
    expect(server.requests.count({ watch: true, resourceId: '/configmaps' })).toBeGreaterThanOrEqual(2);
    mine.close();
    all.close();
  });

  it('the legacy /watch/ prefix and a single-object watch work', async () => {
    await call('POST', cms, { metadata: { name: 'single' } });
    const w = await openWatch(server.url, `/api/v1/watch/namespaces/default/configmaps/single`);
    const [e] = await w.next();
    expect(e).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'single' } } });
    w.close();
  });
});
