import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { generate } from 'selfsigned';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, retryAfter } from '../../src/client/api-error.js';
import { parseRetryAfter } from '../../src/client/api-error-from-response.js';
import { KubeConnection } from '../../src/client/kube-connection.js';
import { NetworkError } from '../../src/client/network-error.js';
import { json, kubeConfigFor, makeCerts, startServer, type TestCerts, type TestServer } from './fixtures.js';

const TOKEN = 'tok-3f9a1c7e5b2d';

let certs: TestCerts;
beforeAll(async () => {
  certs = await makeCerts();
});

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function serve(handler: Parameters<typeof startServer>[0], tls?: Parameters<typeof startServer>[1]): Promise<TestServer> {
  const server = await startServer(handler, tls);
  cleanup.push(() => server.close());
  return server;
}

function connect(...args: Parameters<typeof kubeConfigFor>): KubeConnection {
  const conn = KubeConnection.fromKubeConfig(kubeConfigFor(...args));
  cleanup.push(() => conn.close());
  return conn;
}

const ok = (_req: unknown, res: import('node:http').ServerResponse): void => json(res, 200, { kind: 'Thing', ok: true });

describe('KubeConnection auth and TLS', () => {
  it('sends the kubeconfig bearer token', async () => {
    const server = await serve(ok);
    await connect(server.url, { token: TOKEN }).request({ path: '/api/v1' });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('verifies the server with the kubeconfig CA data', async () => {
    const server = await serve(ok, { cert: certs.serverCert, key: certs.serverKey });
    expect(await connect(server.url, { token: TOKEN, caData: certs.ca }).request({ path: '/x' })).toEqual({ kind: 'Thing', ok: true });
  });

  it('refuses a server its CA does not vouch for, with a typed NetworkError', async () => {
    const server = await serve(ok, { cert: certs.serverCert, key: certs.serverKey });
    const err = await connect(server.url, { token: TOKEN }).request({ path: '/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).causeCode).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    expect(server.requests).toHaveLength(0);
  });

  it('skips verification only when insecure-skip-tls-verify says so', async () => {
    const server = await serve(ok, { cert: certs.serverCert, key: certs.serverKey });
    expect(await connect(server.url, { token: TOKEN, skipTLSVerify: true }).request({ path: '/x' })).toMatchObject({ ok: true });
  });

  it('presents the kubeconfig client certificate', async () => {
    let presented = '';
    const server = await serve(
      (req, res) => {
        presented = String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN);
        ok(req, res);
      },
      { cert: certs.serverCert, key: certs.serverKey, ca: [certs.clientCert], requestCert: true, rejectUnauthorized: true },
    );
    await connect(server.url, { caData: certs.ca, certData: certs.clientCert, keyData: certs.clientKey }).request({ path: '/x' });
    expect(presented).toBe('rxkube-client');
    const without = await connect(server.url, { caData: certs.ca }).request({ path: '/x' }).catch((e: unknown) => e);
    expect(without).toBeInstanceOf(NetworkError);
  });

  it('runs an exec credential plugin and picks up a refreshed token once the old one expires', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-exec-'));
    const counter = join(dir, 'n');
    writeFileSync(counter, '0');
    // Each run bumps the counter and issues token exec-N, already expired, so the next request re-runs it.
    const script = `n=$(($(cat ${counter})+1)); echo $n > ${counter}; printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-%s","expirationTimestamp":"2000-01-01T00:00:00Z"}}' $n`;
    const server = await serve(ok);
    const conn = connect(server.url, { exec: { command: 'sh', args: ['-c', script] } });
    await conn.request({ path: '/a' });
    await conn.request({ path: '/b' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer exec-1', 'Bearer exec-2']);
    expect(readFileSync(counter, 'utf8').trim()).toBe('2');
  });

  it('works in-cluster: service account token file, CA file and namespace', async () => {
    const server = await serve(ok, { cert: certs.serverCert, key: certs.serverKey });
    const prefix = mkdtempSync(join(tmpdir(), 'rxkube-sa-'));
    const sa = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'sa-token-1');
    writeFileSync(join(sa, 'ca.crt'), certs.ca);
    writeFileSync(join(sa, 'namespace'), 'team-a');
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    process.env.KUBERNETES_SERVICE_HOST = '127.0.0.1';
    process.env.KUBERNETES_SERVICE_PORT = new URL(server.url).port;
    try {
      const kc = new KubeConfig();
      kc.loadFromCluster(prefix);
      const conn = KubeConnection.fromKubeConfig(kc);
      cleanup.push(() => conn.close());
      expect(conn.namespace).toBe('team-a');
      await conn.request({ path: '/api/v1' });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer sa-token-1');
    } finally {
      for (const [k, v] of [['KUBERNETES_SERVICE_HOST', saved.host], ['KUBERNETES_SERVICE_PORT', saved.port]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('loads a kubeconfig file whose CA path is relative to the file', async () => {
    const server = await serve(ok, { cert: certs.serverCert, key: certs.serverKey });
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-kc-'));
    writeFileSync(join(dir, 'ca.pem'), certs.ca);
    writeFileSync(
      join(dir, 'config'),
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "' + server.url + '", certificate-authority: ca.pem}}]',
        'users: [{name: u, user: {token: ' + TOKEN + '}}]',
        'contexts: [{name: x, context: {cluster: c, user: u, namespace: ns1}}]',
        'current-context: x',
      ].join('\n'),
    );
    const conn = KubeConnection.fromFile(join(dir, 'config'));
    cleanup.push(() => conn.close());
    expect(conn.namespace).toBe('ns1');
    expect(await conn.request({ path: '/x' })).toMatchObject({ ok: true });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('builds a new agent when an exec plugin rotates the client certificate, without cutting a running stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-rot-'));
    const second = await generate([{ name: 'commonName', value: 'rxkube-client-2' }], { keySize: 2048, extensions: [{ name: 'extKeyUsage', clientAuth: true }] });
    const credential = (cert: string, key: string): string =>
      JSON.stringify({
        apiVersion: 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        status: { clientCertificateData: cert, clientKeyData: key, expirationTimestamp: '2000-01-01T00:00:00Z' },
      });
    const current = join(dir, 'current.json');
    writeFileSync(current, credential(certs.clientCert, certs.clientKey));
    const seen: string[] = [];
    let releaseStream: () => void = () => undefined;
    const server = await serve(
      (req, res) => {
        seen.push(String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN));
        if (req.path === '/stream') {
          res.writeHead(200);
          res.write('first');
          releaseStream = () => res.end('-last');
          return;
        }
        ok(req, res);
      },
      { cert: certs.serverCert, key: certs.serverKey, ca: [certs.clientCert, second.cert], requestCert: true, rejectUnauthorized: true },
    );
    const conn = connect(server.url, { caData: certs.ca, exec: { command: 'cat', args: [current] } });
    await conn.request({ path: '/a' });
    const first = conn.currentAgent;
    const chunks: string[] = [];
    const streamDone = new Promise<void>((resolve, reject) =>
      conn.stream({ path: '/stream' }).subscribe({ next: (c) => chunks.push(c.toString()), complete: resolve, error: reject }),
    );
    await conn.request({ path: '/b' });
    expect(conn.currentAgent).toBe(first);
    writeFileSync(current, credential(second.cert, second.private));
    await conn.request({ path: '/c' });
    expect(conn.currentAgent).not.toBe(first);
    releaseStream();
    await streamDone;
    expect(chunks.join('')).toBe('first-last');
    expect(seen).toEqual(['rxkube-client', 'rxkube-client', 'rxkube-client', 'rxkube-client-2']);
  });

  it('keeps one agent while the TLS material is unchanged', async () => {
    const server = await serve(ok, { cert: certs.serverCert, key: certs.serverKey });
    const conn = connect(server.url, { token: TOKEN, caData: certs.ca });
    await conn.request({ path: '/a' });
    const agent = conn.currentAgent;
    await conn.request({ path: '/b' });
    await firstValueFrom(conn.stream({ path: '/c' }));
    expect(conn.currentAgent).toBe(agent);
  });

  it('keeps a path prefix of the server URL', async () => {
    const server = await serve(ok);
    await connect(`${server.url}/k8s/clusters/c-1`, { token: TOKEN }).request({ path: '/api/v1', query: { a: 'x y', b: undefined } });
    expect(server.requests[0]?.path).toBe('/k8s/clusters/c-1/api/v1');
    expect(server.requests[0]?.query.get('a')).toBe('x y');
    expect(server.requests[0]?.query.has('b')).toBe(false);
  });
});

describe('KubeConnection errors', () => {
  it('turns a Status body into ApiError with code, reason and Status', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'Conflict', message: 'the object has been modified', details: { name: 'a', kind: 'configmaps' } };
    const server = await serve((_req, res) => json(res, 409, status));
    const err = await connect(server.url, { token: TOKEN }).request({ path: '/x', method: 'PUT', body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 409, code: 'API_CONFLICT', reason: 'Conflict', status });
  });

  it('synthesizes a Status when the body is not one', async () => {
    const server = await serve((_req, res) => void res.writeHead(503, { 'retry-after': '12' }).end('upstream connect error'));
    const err = await connect(server.url, { token: TOKEN }).request({ path: '/x' }, undefined, { retry: false }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      statusCode: 503,
      reason: 'ServiceUnavailable',
      status: { kind: 'Status', status: 'Failure', code: 503, reason: 'ServiceUnavailable', message: 'upstream connect error' },
    });
    expect(retryAfter(err)).toBe(12);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('types a refused connection as NetworkError with its code', async () => {
    const server = await serve(ok);
    const url = server.url;
    await server.close();
    const err = await connect(url, { token: TOKEN }).request({ path: '/api/v1/pods' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'CLIENT_NETWORK_FAILURE', causeCode: 'ECONNREFUSED', method: 'GET', path: '/api/v1/pods' });
  });

  it('never puts the token in errors, even when the server echoes it back', async () => {
    const server = await serve((req, res) =>
      json(res, 401, { kind: 'Status', status: 'Failure', code: 401, reason: 'Unauthorized', message: `bad credentials: ${String(req.headers.authorization)}` }),
    );
    const conn = connect(server.url, { token: TOKEN });
    const apiErr = await conn.request({ path: '/x' }).catch((e: unknown) => e);
    const streamErr = await firstValueFrom(conn.stream({ path: '/x' })).catch((e: unknown) => e);
    await server.close();
    const netErr = await conn.request({ path: '/x' }).catch((e: unknown) => e);
    expect(apiErr).toMatchObject({ statusCode: 401, reason: 'Unauthorized' });
    expect((apiErr as ApiError).message).toContain('[REDACTED]');
    expect(streamErr).toBeInstanceOf(ApiError);
    expect(netErr).toBeInstanceOf(NetworkError);
    for (const err of [apiErr, streamErr, netErr]) {
      const rendered = `${String(err)} ${inspect(err, { depth: 10, showHidden: true })} ${JSON.stringify(err)}`;
      expect(rendered).not.toContain(TOKEN);
    }
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const server = await serve(() => undefined);
    const abort = new AbortController();
    const pending = connect(server.url, { token: TOKEN }).request({ path: '/slow' }, abort.signal);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await server.requests[0]!.closed;
  });
});

describe('KubeConnection keep-alive', () => {
  it('replays an idempotent request once when a reused socket turns out closed, but never a POST', async () => {
    let served = 0;
    const server = await serve((req, res) => {
      served++;
      // Every second request arriving on an already used socket: drop the connection unanswered.
      if (served % 2 === 0) {
        res.socket?.destroy();
        return;
      }
      json(res, 200, { path: req.path });
    });
    const conn = connect(server.url, { token: TOKEN });
    await conn.request({ path: '/first' });
    expect(await conn.request({ path: '/again' })).toEqual({ path: '/again' });
    expect(server.connections).toHaveLength(2);
    const post = await conn.request({ path: '/create', method: 'POST', body: {} }).catch((e: unknown) => e);
    expect(post).toMatchObject({ name: 'NetworkError', causeCode: 'ECONNRESET', method: 'POST' });
  });
});
