import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

describe('embedded API server: fault injection', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
  });
  afterAll(() => server.close());

  it('fails the next N matching requests with a chosen status; 429 carries Retry-After', async () => {
    server.faults.failNext({ method: 'GET', path: cms, count: 2, code: 429, retryAfterSeconds: 3 });
    const a = await call('GET', cms);
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('3');
    expect(a.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 3 } });
    expect((await call('POST', cms, { metadata: { name: 'not-matched' } })).status).toBe(201);
    expect((await call('GET', cms)).status).toBe(429);
    expect((await call('GET', cms)).status).toBe(200);
    server.faults.failNext({ path: /configmaps/, code: 503 });
    const u = await call('GET', `${cms}/not-matched`);
    expect(u.status).toBe(503);
    expect(u.body.reason).toBe('ServiceUnavailable');
    server.faults.failNext({ code: 500, watch: true });
    expect((await call('GET', cms)).status).toBe(200);
    expect((await call('GET', `${cms}?watch=1`)).status).toBe(500);
  });

  it('adds latency', async () => {
    server.faults.latency(150, { path: cms });
    const t0 = Date.now();
    await call('GET', cms);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    server.faults.clear();
  });

  it('a watch whose client gave up during the latency is not left open when the latency ends', async () => {
    server.faults.latency(300, { path: cms, watch: true });
    const watchesAsked = server.requests.count({ path: cms, watch: true });
    const { request } = await import('node:http');
    const req = request(`${server.url}${cms}?watch=1&resourceVersion=${server.resourceVersion}`);
    req.on('error', () => undefined);
    req.end();
    await new Promise((r) => setTimeout(r, 100));
    req.destroy(); // gone before the server serves the watch
    await new Promise((r) => setTimeout(r, 400)); // the latency is over: the watch was served, or not
    expect(server.requests.count({ path: cms, watch: true })).toBe(watchesAsked + 1);
    expect(server.openWatches('/configmaps')).toBe(0);
    server.faults.clear();
  });

  it('drops every open watch (clean end or abrupt)', async () => {
    const w1 = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}`);
    const w2 = await openWatch(server.url, `/api/v1/pods?watch=1&resourceVersion=${server.resourceVersion}`);
    expect(server.openWatches()).toBe(2);
    expect(server.faults.dropWatches({ resourceId: '/pods', abrupt: true })).toBe(1);
    await w2.ended;
    expect(server.faults.dropWatches()).toBe(1);
    await w1.ended;
    expect(server.openWatches()).toBe(0);
  });

  it('drops a watch after N events', async () => {
    server.faults.dropWatchAfter(2, { path: cms, count: 1 });
    const rv = server.resourceVersion;
    for (const n of ['d1', 'd2', 'd3']) await call('POST', cms, { metadata: { name: n } });
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${rv}`);
    await w.ended;
    expect(w.all.map((e) => e.object['metadata'] && (e.object['metadata'] as { name: string }).name)).toEqual(['d1', 'd2']);
    const again = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${rv}`);
    expect((await again.next(3)).length).toBe(3);
    again.close();
  });

  it('injects an ERROR event with any Status, then the stream ends', async () => {
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}`);
    expect(server.faults.injectWatchError({ code: 500, reason: 'InternalError', message: 'boom' })).toBe(1);
    const [e] = await w.next();
    expect(e).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' } });
    await w.ended;
  });

  it('compacts history on demand: watching from before gives 410', async () => {
    const rv = server.resourceVersion;
    await call('POST', cms, { metadata: { name: 'c1' } });
    server.faults.compact();
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${rv}`);
    const [e] = await w.next();
    expect(e).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    // from the current version it still works
    const ok = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}`);
    await call('POST', cms, { metadata: { name: 'c2' } });
    expect((await ok.next())[0]?.type).toBe('ADDED');
    ok.close();
  });

  it('freezes open watches without closing them, then resumes', async () => {
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}`);
    server.faults.freezeWatches();
    await call('POST', cms, { metadata: { name: 'f1' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(w.all).toHaveLength(0);
    expect(server.openWatches('/configmaps')).toBe(1);
    server.faults.unfreezeWatches();
    expect((await w.next())[0]?.object.metadata?.name).toBe('f1');
    w.close();
  });

  it('restarts: connections close, state and resourceVersion stay', async () => {
    const w = await openWatch(server.url, `${cms}?watch=1&resourceVersion=${server.resourceVersion}`);
    const rv = server.resourceVersion;
    await server.faults.restart(50);
    await w.ended;
    expect(server.resourceVersion).toBe(rv);
    const got = await call('GET', `${cms}/f1`);
    expect(got.status).toBe(200);
  });
});
