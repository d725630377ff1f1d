/**
 * Hostile server: accepts the TCP connection and never answers (or answers the headers and then
 * goes quiet). Every non-watch request must fail within its timeout with a typed error naming the
 * server, the method, the path and the timeout; a client-wide default and a per-call override both
 * apply. The response-phase cases run over both transports (KubeConnection, FetchConnection).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { KubeConnection } from '../../src/client/kube-connection.js';
import { NetworkError } from '../../src/client/network-error.js';
import { RequestTimeoutError } from '../../src/client/request-timeout-error.js';
import { deadline } from '../../src/client/request-deadline.js';
import { fetchClient } from '../../src/client/fetch-client.js';
import { plainKubeConfig, startFakeApiServer, type FakeApiServer } from './fake-api-server.js';
import { TestScheduler } from 'rxjs/testing';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function silentServer(): Promise<FakeApiServer> {
  const server = await startFakeApiServer(() => undefined); // accepts, reads, never answers
  cleanup.push(() => server.close());
  return server;
}

type ClientOptions = NonNullable<ConstructorParameters<typeof KubeConnection>[1]>;
type MakeClient = (server: FakeApiServer, options?: Pick<ClientOptions, 'requestTimeoutMs'>) => KubeClient;

/** A client of `server` over one transport; closed after the test. */
function track(client: KubeClient): KubeClient {
  cleanup.push(() => client.close());
  return client;
}

function clientOf(server: FakeApiServer, options: ClientOptions = {}): KubeClient {
  return track(KubeClient.fromKubeConfig(server.kubeConfig, { retry: false, ...options }));
}

const TRANSPORT_CLIENTS: ReadonlyArray<readonly [string, MakeClient]> = [
  ['node (KubeConnection)', (server, options = {}) => clientOf(server, options)],
  ['fetch (FetchConnection)', (server, options = {}) => track(fetchClient({ server: server.url, token: server.token, retry: false, ...options }))],
];

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => new Error('resolved'),
    (e: unknown) => e,
  );
}

describe.each(TRANSPORT_CLIENTS)('hostile: a server that accepts and never answers, %s', (_name, clientOf) => {
  it('list() fails within the client-wide request timeout with a typed error naming server, verb, path and timeout', async () => {
    const server = await silentServer();
    const client = clientOf(server, { requestTimeoutMs: 150 });
    const started = Date.now();
    const err = await failure(client.objects(resources.pods, 'default').list());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'CLIENT_REQUEST_TIMEOUT', phase: 'response', timeoutMs: 150, method: 'GET', path: '/api/v1/namespaces/default/pods' });
    const message = (err as Error).message;
    expect(message).toContain(new URL(server.url).host);
    expect(message).toContain('GET /api/v1/namespaces/default/pods');
    expect(message).toContain('150 ms');
  });

  it('get() fails within a per-call timeout that overrides the client default', async () => {
    const server = await silentServer();
    const client = clientOf(server); // default 60 s
    const err = await failure(client.objects(resources.pods, 'default').get('a', { timeoutMs: 100 }));
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toMatchObject({ timeoutMs: 100, method: 'GET', path: '/api/v1/namespaces/default/pods/a' });
  });

  it('a list stream fails when the headers do not come in time', async () => {
    const server = await silentServer();
    const client = clientOf(server, { requestTimeoutMs: 100 });
    const err = await failure(firstValueFrom(client.listWatcher(resources.pods, { namespace: 'default' }).list({})));
    expect(err).toBeInstanceOf(RequestTimeoutError);
  });

  it('a watch whose headers never come fails too; a watch that is open but quiet does not', async () => {
    const server = await silentServer();
    const client = clientOf(server, { requestTimeoutMs: 100 });
    const err = await failure(firstValueFrom(client.listWatcher(resources.pods, { namespace: 'default' }).watch({ resourceVersion: '1' })));
    expect(err).toBeInstanceOf(RequestTimeoutError);
    const quiet = await startFakeApiServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
    });
    cleanup.push(() => quiet.close());
    const events: unknown[] = [];
    const errors: unknown[] = [];
    const sub = clientOf(quiet, { requestTimeoutMs: 100 })
      .listWatcher(resources.pods, { namespace: 'default' })
      .watch({ resourceVersion: '1' })
      .subscribe({ next: (e) => events.push(e), error: (e: unknown) => errors.push(e) });
    await new Promise((r) => setTimeout(r, 400));
    sub.unsubscribe();
    expect(errors).toEqual([]);
  });

  it('the default request timeout is 60 s', async () => {
    const server = await silentServer();
    expect(clientOf(server).connection.requestTimeoutMs).toBe(60_000);
  });

  it('a list stream fails when its body goes quiet for longer than the timeout', async () => {
    const server = await startFakeApiServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[');
    });
    cleanup.push(() => server.close());
    const client = clientOf(server, { requestTimeoutMs: 150 });
    const err = await failure(firstValueFrom(client.listWatcher(resources.pods, { namespace: 'default' }).list({})));
    expect(err).toBeInstanceOf(RequestTimeoutError);
  });

});

describe('hostile: a TLS server that never finishes the handshake (node:https)', () => {
  it('a TLS server that never finishes the handshake fails within the handshake timeout', async () => {
    const sockets = new Set<net.Socket>();
    const tcp = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    }); // accepts TCP, never speaks TLS
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      tcp.close(() => resolve());
    }));
    const url = `https://127.0.0.1:${(tcp.address() as AddressInfo).port}`;
    const conn = new KubeConnection(plainKubeConfig(url, { token: 'x-token-123' }), { retry: false, tlsHandshakeTimeoutMs: 100, requestTimeoutMs: 0 });
    cleanup.push(() => conn.close());
    const err = await failure(conn.request({ path: '/api/v1/pods' }));
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toMatchObject({ phase: 'tlsHandshake', timeoutMs: 100 });
    expect((err as Error).message).toContain('TLS handshake');
  });

  it('deadlines run on the given scheduler and are cancellable', () => {
    const scheduler = new TestScheduler(() => undefined);
    const fired = deadline(scheduler, 100, undefined, () => new Error('late'));
    const cancelled = deadline(scheduler, 100, undefined, () => new Error('late'));
    cancelled.cancel();
    scheduler.flush();
    expect(fired.signal.aborted).toBe(true);
    expect((fired.signal.reason as Error).message).toBe('late');
    expect(cancelled.signal.aborted).toBe(false);
  });
});

describe('connect timeout', () => {
  it('fails a socket still connecting after connectTimeoutMs, and disarms once connected', async () => {
    const { EventEmitter } = await import('node:events');
    const { boundConnection } = await import('../../src/client/request-timeouts.js');
    const scheduler = new TestScheduler(() => undefined);
    const failures: string[] = [];
    const slow = Object.assign(new EventEmitter(), { connecting: true });
    const req1 = new EventEmitter();
    boundConnection(req1 as never, scheduler, 30, 10, true, (phase, ms) => failures.push(`${phase}:${ms}`));
    req1.emit('socket', slow);
    const quick = Object.assign(new EventEmitter(), { connecting: true });
    const req2 = new EventEmitter();
    boundConnection(req2 as never, scheduler, 30, 10, true, (phase, ms) => failures.push(`late ${phase}:${ms}`));
    req2.emit('socket', quick);
    quick.emit('connect');
    quick.emit('secureConnect');
    scheduler.flush();
    expect(failures).toEqual(['connect:30']);
  });
});
