import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, isGone } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnection } from '../../src/client/kube-connection.js';
import { NetworkError } from '../../src/client/network-error.js';
import { WatchDecodeError } from '../../src/client/watch-decode-error.js';
import type { ListPagePart } from '../../src/client/list-parts.js';
import { listPages } from '../../src/reflector/list-pages.js';
import { json, kubeConfigFor, sleep, startServer, type Handler, type TestServer } from './fixtures.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;
const cm = (name: string, rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } });

let server: TestServer | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
  server = client = undefined;
});

async function setup(handler: Handler): Promise<{ server: TestServer; client: KubeClient }> {
  server = await startServer(handler);
  client = KubeClient.fromKubeConfig(kubeConfigFor(server.url, { token: 'sekrit-token' }));
  return { server, client };
}

describe('HttpListWatcher.list', () => {
  it('sends one page request with every list option and the scope selectors', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 200, { kind: 'ConfigMapList', metadata: { resourceVersion: '42', continue: 'next', remainingItemCount: 3 }, items: [cm('a', '40')] }),
    );
    const lw = client.listWatcher(CM, { namespace: 'ns', labelSelector: 'app=x', fieldSelector: 'metadata.name!=b' });
    const page = await firstValueFrom(lw.list({ limit: 2, continue: 'tok', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }));
    expect(page).toEqual({ items: [cm('a', '40')], resourceVersion: '42', continue: 'next', remainingItemCount: 3 });
    const [req] = server.requests;
    expect(req?.method).toBe('GET');
    expect(req?.path).toBe('/api/v1/namespaces/ns/configmaps');
    expect(Object.fromEntries(req!.query)).toEqual({
      labelSelector: 'app=x',
      fieldSelector: 'metadata.name!=b',
      limit: '2',
      continue: 'tok',
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(req?.headers.authorization).toBe('Bearer sekrit-token');
  });

  it('lists all namespaces without a namespace, omits empty options, and reports the last page without continue', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, { metadata: { resourceVersion: '7', continue: '' }, items: [] }));
    const page = await firstValueFrom(client.listWatcher(CM).list({}));
    expect(page).toEqual({ items: [], resourceVersion: '7' });
    expect(server.requests[0]?.path).toBe('/api/v1/configmaps');
    expect([...server.requests[0]!.query.keys()]).toEqual([]);
  });

  it('errors with ApiError carrying the Status of a non-2xx answer', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'continue token expired' };
    const { client } = await setup((_req, res) => json(res, 410, status));
    const err = await firstValueFrom(client.listWatcher(CM).list({ continue: 'old' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 410, reason: 'Expired', status });
    expect(isGone(err)).toBe(true);
  });

  it('aborts the request when unsubscribed', async () => {
    const { server, client } = await setup(() => {
      /* never answers */
    });
    const sub = client.listWatcher(CM).list({}).subscribe();
    while (server.requests.length === 0) await sleep(5);
    sub.unsubscribe();
    await server.requests[0]!.closed; // resolves only once the client went away
  });
});

describe('HttpListWatcher.watch', () => {
  it('sends watch options and decodes events from chunks split anywhere', async () => {
    const events = [
      { type: 'ADDED', object: cm('a', '1') },
      { type: 'MODIFIED', object: cm('a', '2') },
      { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '3' } } },
      { type: 'DELETED', object: cm('a', '4') },
    ];
    const body = events.map((e) => JSON.stringify(e)).join('\n'); // no final newline
    const { server, client } = await setup(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (const piece of [body.slice(0, 7), body.slice(7, 80), body.slice(80, 81), body.slice(81)]) {
        res.write(piece);
        await sleep(10);
      }
      res.end();
    });
    const lw = client.listWatcher(CM, { namespace: 'ns', labelSelector: 'a=b' });
    const got = await lastValueFrom(
      lw.watch({ resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 300, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }).pipe(toArray()),
    );
    expect(got).toEqual(events);
    expect(Object.fromEntries(server.requests[0]!.query)).toEqual({
      watch: 'true',
      labelSelector: 'a=b',
      resourceVersion: '1',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
      sendInitialEvents: 'true',
    });
  });

  it('emits events before the stream ends', async () => {
    let finish: () => void = () => undefined;
    const { client } = await setup((_req, res) => {
      res.writeHead(200);
      res.write(`${JSON.stringify({ type: 'ADDED', object: cm('a', '1') })}\n`);
      finish = () => res.end();
    });
    const first = await firstValueFrom(client.listWatcher(CM).watch({}));
    expect(first).toEqual({ type: 'ADDED', object: cm('a', '1') });
    finish();
  });

  it('passes ERROR events through as events', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' };
    const { client } = await setup((_req, res) => {
      res.writeHead(200);
      res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    });
    expect(await lastValueFrom(client.listWatcher(CM).watch({}).pipe(toArray()))).toEqual([{ type: 'ERROR', object: status }]);
  });

  it('errors with WatchDecodeError on a line that is not JSON', async () => {
    const first = `${JSON.stringify({ type: 'ADDED', object: cm('a', '1') })}\n`;
    const { client } = await setup((_req, res) => {
      res.writeHead(200);
      res.end(`${first}<html>proxy error</html>\n`);
    });
    const seen: unknown[] = [];
    const err = await new Promise((resolve) => client.listWatcher(CM).watch({}).subscribe({ next: (e) => seen.push(e), error: resolve }));
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(WatchDecodeError);
    expect((err as WatchDecodeError).offset).toBe(Buffer.byteLength(first));
  });

  it('errors with NetworkError when the connection drops mid-body', async () => {
    const { client } = await setup((req, res) => {
      res.writeHead(200);
      res.write(`${JSON.stringify({ type: 'ADDED', object: cm('a', '1') })}\n`);
      setTimeout(() => res.socket?.destroy(), 20);
      void req;
    });
    const seen: unknown[] = [];
    const err = await new Promise((resolve) => client.listWatcher(CM).watch({}).subscribe({ next: (e) => seen.push(e), error: resolve }));
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(NetworkError);
  });

  it('errors with ApiError (and Retry-After) when the watch request is refused', async () => {
    const { client } = await setup((_req, res) => void res.writeHead(429, { 'retry-after': '3' }).end('slow down'));
    const err = await firstValueFrom(client.listWatcher(CM).watch({})).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ApiError', statusCode: 429, code: 'API_TOO_MANY_REQUESTS', reason: 'TooManyRequests', retryAfterSeconds: 3 });
  });

  it('aborts the watch request when unsubscribed', async () => {
    const { server, client } = await setup((_req, res) => {
      res.writeHead(200);
      res.write(`${JSON.stringify({ type: 'ADDED', object: cm('a', '1') })}\n`);
    });
    const first = await firstValueFrom(client.listWatcher(CM).watch({}));
    expect(first.type).toBe('ADDED');
    // firstValueFrom unsubscribed after the first event: the server must see the client go away.
    await server.requests[0]!.closed;
  });

  it('reuses one keep-alive agent and socket across lists and watch reconnects', async () => {
    const { server, client } = await setup((req, res) => {
      if (req.query.get('watch') === 'true') {
        res.writeHead(200);
        res.end(`${JSON.stringify({ type: 'ADDED', object: cm('a', '1') })}\n`);
      } else {
        json(res, 200, { metadata: { resourceVersion: '1' }, items: [] });
      }
    });
    const lw = client.listWatcher(CM);
    await firstValueFrom(lw.list({}));
    const agent = (client.connection as KubeConnection).currentAgent;
    expect(agent).toBeDefined();
    for (let i = 0; i < 5; i++) {
      await lastValueFrom(lw.watch({}).pipe(toArray()));
      await firstValueFrom(lw.list({}));
    }
    expect((client.connection as KubeConnection).currentAgent).toBe(agent);
    expect(server.requests).toHaveLength(11);
    expect(server.connections).toHaveLength(1);
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBe(1);
  });
});

describe('HttpListWatcher.listParts and pipelined paging', () => {
  it("decode: 'items' parses a page item by item even when asked for it unparsed", async () => {
    const body = (items: string) => `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"c1"},"items":[${items}]}`;
    let items = `${JSON.stringify(cm('a', '4'))},${JSON.stringify(cm('b', '4'))}`;
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body(items));
    });
    const lw = client.listWatcher(CM, { namespace: 'ns' });
    const kept = await lastValueFrom(lw.listParts({ limit: 2 }, { unparsed: true }).pipe(toArray()));
    expect(kept.map((p) => p.type)).toEqual(['head', 'body']);
    const parsed = await lastValueFrom(lw.listParts({ limit: 2 }, { unparsed: true, decode: 'items' }).pipe(toArray()));
    expect(parsed).toEqual([
      { type: 'head', resourceVersion: '5', continue: 'c1' },
      { type: 'page', page: { items: [cm('a', '4'), cm('b', '4')], resourceVersion: '5', continue: 'c1' } },
    ]);
    items = `${JSON.stringify(cm('a', '4'))},{"broken":`;
    await expect(lastValueFrom(lw.listParts({ limit: 2 }, { decode: 'items' }))).rejects.toThrow(/bad list item 1/);
  });

  it('emits the head from the first bytes, before the body has ended, then the page', async () => {
    let finish: (() => void) | undefined;
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"c1"},"items":[');
      finish = () => res.end(`${JSON.stringify(cm('a', '4'))}]}`);
    });
    const parts: ListPagePart[] = [];
    const done = new Promise<void>((resolve, reject) =>
      client.listWatcher(CM, { namespace: 'ns' }).listParts({ limit: 1 }).subscribe({ next: (p) => parts.push(p), error: reject, complete: resolve }),
    );
    for (let i = 0; i < 200 && parts.length === 0; i++) await sleep(10);
    expect(parts).toEqual([{ type: 'head', resourceVersion: '5', continue: 'c1' }]);
    finish?.();
    await done;
    expect(parts[1]).toEqual({ type: 'page', page: { items: [cm('a', '4')], resourceVersion: '5', continue: 'c1' } });
  });

  it('requests page 2 while page 1 is still arriving, and assembles the pages in order', async () => {
    const pages: Record<string, { items: unknown[]; next?: string }> = {
      '': { items: [cm('a', '1'), cm('b', '1')], next: 'c1' },
      c1: { items: [cm('c', '1')], next: 'c2' },
      c2: { items: [cm('d', '1')] },
    };
    /** Ends of responses held until their successor page is requested, by the successor's token. */
    const held = new Map<string, () => void>();
    const { server, client } = await setup((req, res) => {
      const token = req.query.get('continue') ?? '';
      const page = pages[token];
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"${page?.next ? `,"continue":"${page.next}"` : ''}},"items":[`);
      const end = () => res.end(`${(page?.items ?? []).map((o) => JSON.stringify(o)).join(',')}]}`);
      // a page with a successor ends only once the successor was requested: a strictly
      // sequential pager would wait here forever
      if (page?.next) held.set(page.next, end);
      else end();
      held.get(token)?.();
      held.delete(token);
    });
    const list = await firstValueFrom(listPages(client.listWatcher(CM, { namespace: 'ns' }), { limit: 2, resourceVersion: '0' }));
    expect(list.items.map((o) => o.metadata?.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(list).toMatchObject({ resourceVersion: '9', paginated: true, pages: 3 });
    expect(server.requests.map((r) => r.query.get('continue') ?? '')).toEqual(['', 'c1', 'c2']);
    expect(server.requests.map((r) => r.query.get('resourceVersion') ?? '')).toEqual(['0', '', '']);
  });

  it("with parse 'items', 'atEnd' or 'perPage' the same list is assembled as with the default", async () => {
    const { client } = await setup((req, res) => {
      const token = req.query.get('continue') ?? '';
      json(res, 200, token === '' ? { metadata: { resourceVersion: '3', continue: 'n' }, items: [cm('a', '1')] } : { metadata: { resourceVersion: '3' }, items: [cm('b', '2')] });
    });
    const lw = client.listWatcher(CM, { namespace: 'ns' });
    for (const options of [{ parse: 'auto' }, { parse: 'auto', memoryBudget: 1 }, { parse: 'items' }, { parse: 'atEnd' }, { parse: 'perPage' }] as const) {
      const list = await firstValueFrom(listPages(lw, { limit: 1 }, options));
      expect(list).toEqual({ items: [cm('a', '1'), cm('b', '2')], resourceVersion: '3', paginated: true, pages: 2 });
    }
  });
});
