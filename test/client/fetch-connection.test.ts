// FetchConnection's own behaviour (what the transport-parameterised suites cannot show): where
// requests go and what they carry, the token provider, abort on unsubscribe, close(), retries of
// request(), and watch bodies delivered as plain Uint8Array chunks (a browser's), split anywhere.
import { firstValueFrom, lastValueFrom, type Subscription, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { ApiError } from '../../src/client/api-error.js';
import { fetchClient } from '../../src/client/fetch-client.js';
import { FetchConfigError } from '../../src/client/fetch-config-error.js';
import { FetchConnection } from '../../src/client/fetch-connection.js';
import { KubeClientBase } from '../../src/client/kube-client-base.js';
import { NetworkError } from '../../src/client/network-error.js';
import { json, pod, podList, startFakeApiServer, type FakeApiServer } from '../hostile/fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function server(handler: Parameters<typeof startFakeApiServer>[0]): Promise<FakeApiServer> {
  const s = await startFakeApiServer(handler);
  cleanup.push(() => s.close());
  return s;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('FetchConnection', () => {
  it('sends requests below the server URL path, with the token, Accept and extra headers', async () => {
    const s = await server((_req, res) => json(res, 200, podList([pod('a', '1')], '1')));
    const client = fetchClient({ server: `${s.url}/k8s/`, token: s.token, headers: { 'X-CSRF': 'yes' } });
    expect(client).toBeInstanceOf(KubeClientBase);
    const list = await client.objects(resources.pods, 'default').list();
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['a']);
    const seen = s.requests[0]!;
    expect(seen.path).toBe('/k8s/api/v1/namespaces/default/pods');
    expect(seen.headers.authorization).toBe(`Bearer ${s.token}`);
    expect(seen.headers.accept).toBe('application/json');
    expect(seen.headers['x-csrf']).toBe('yes');
  });

  it('asks the token provider before every request, and fails the request with a NetworkError when it fails', async () => {
    const s = await server((_req, res) => json(res, 200, podList([], '1')));
    let calls = 0;
    const client = fetchClient({
      server: s.url,
      token: async () => {
        calls++;
        if (calls === 3) throw new Error('session expired');
        return `token-${calls}`;
      },
    });
    const pods = client.objects(resources.pods, 'default');
    await pods.list();
    await pods.list();
    expect(s.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    const err = await pods.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(String(err)).toContain('token provider failed: session expired');
    expect(s.requests).toHaveLength(2);
  });

  it('resolves a server path against the page, and refuses one where there is no page', () => {
    expect(() => new FetchConnection({ server: '/k8s' })).toThrow(FetchConfigError);
    const g = globalThis as { location?: { href: string } };
    g.location = { href: 'https://dash.example/app/index.html' };
    try {
      expect(new FetchConnection({ server: '/k8s' }).server.href).toBe('https://dash.example/k8s');
    } finally {
      delete g.location;
    }
  });

  it('aborts the watch request when the subscriber unsubscribes', async () => {
    let closed = false;
    const s = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      req.socket.on('close', () => (closed = true));
    });
    const client = fetchClient({ server: s.url, token: s.token });
    const sub: Subscription = client.listWatcher(resources.pods, { namespace: 'default' }).watch({ resourceVersion: '1' }).subscribe();
    for (let i = 0; i < 50 && s.requests.length === 0; i++) await sleep(20);
    await sleep(50);
    expect(closed).toBe(false);
    sub.unsubscribe();
    for (let i = 0; i < 50 && !closed; i++) await sleep(20);
    expect(closed).toBe(true);
  });

  it('close() errors an open watch with a NetworkError, and requests after it fail', async () => {
    const s = await server((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
      } else json(res, 200, podList([], '1'));
    });
    const client = fetchClient({ server: s.url, token: s.token });
    const errors: unknown[] = [];
    client.listWatcher(resources.pods, { namespace: 'default' }).watch({ resourceVersion: '1' }).subscribe({ error: (e: unknown) => errors.push(e) });
    for (let i = 0; i < 50 && s.requests.length === 0; i++) await sleep(20);
    client.close();
    for (let i = 0; i < 50 && errors.length === 0; i++) await sleep(20);
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect(String(errors[0])).toContain('GET /api/v1/namespaces/default/pods: connection closed');
    const later = await client.objects(resources.pods, 'default').list().catch((e: unknown) => e);
    expect(later).toBeInstanceOf(NetworkError);
    expect(String(later)).toContain('connection closed');
  });

  it('retries 503 answers of request() with backoff and gives up with the ApiError', async () => {
    let n = 0;
    const s = await server((_req, res) => {
      n++;
      if (n <= 2) json(res, 503, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable' }, { 'retry-after': '0' });
      else json(res, 200, podList([], '7'));
    });
    const retry = { initialDelayMs: 5, jitter: 0 };
    const client = fetchClient({ server: s.url, token: s.token, retry });
    await client.objects(resources.pods, 'default').list();
    expect(n).toBe(3);
    const once = fetchClient({ server: s.url, token: s.token, retry: false });
    n = 0;
    const err = await once.objects(resources.pods, 'default').list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 503 });
  });

  it('decodes a watch body of plain Uint8Array chunks split anywhere, multi-byte characters included', async () => {
    const lines = [
      JSON.stringify({ type: 'ADDED', object: { ...pod('a', '2'), data: { note: 'größe ✓ 🚀' } } }),
      JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '3' } } }),
    ];
    const bytes = new TextEncoder().encode(`${lines.join('\n')}\n`);
    const fakeFetch = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            // one byte at a time: every line and every multi-byte character is split
            for (let i = 0; i < bytes.length; i++) controller.enqueue(bytes.slice(i, i + 1));
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      )) as typeof fetch;
    const client = fetchClient({ server: 'http://cluster.invalid', fetch: fakeFetch });
    const lw = client.listWatcher({ ...resources.pods });
    const events = await lastValueFrom(lw.watch({ resourceVersion: '1' }).pipe(toArray()));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect((events[0]!.object as { data?: { note?: string } }).data?.note).toBe('größe ✓ 🚀');
    const page = await firstValueFrom(
      fetchClient({ server: 'http://cluster.invalid', fetch: (async () => new Response(JSON.stringify(podList([pod('b', '4')], '4')))) as typeof fetch })
        .listWatcher(resources.pods)
        .list({}),
    );
    expect(page).toMatchObject({ resourceVersion: '4', items: [{ metadata: { name: 'b' } }] });
  });

  it('reports requests to observers with method, host and status', async () => {
    const s = await server((_req, res) => json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' }));
    const connection = new FetchConnection({ server: s.url, token: s.token, retry: false });
    const outcomes: unknown[] = [];
    connection.observeRequests((o) => outcomes.push(o));
    await connection.request({ path: '/api/v1/namespaces/default/pods/x' }).catch(() => undefined);
    expect(outcomes).toMatchObject([{ method: 'GET', host: new URL(s.url).host, code: 404 }]);
  });
});
