/**
 * The webhook server over real HTTPS: reviews in and out, every bad request answered (never a
 * crash), bounded bodies, metrics under controller-runtime's names, the started check, and the
 * serving certificate reloaded when its files change (as cert-manager rotates them).
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial, type TlsMaterial } from '../../packages/testkit/src/index.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import type { Logger } from '../../src/logging/logger.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { allow, deny, mutatingWebhook, validatingWebhook, webhookServer, type WebhookServer } from '../../src/webhook/index.js';
import { convertDatabases } from '../../examples/custom-resource/database-webhooks.js';

type Thing = KubeObject & { spec?: { n?: number } };
const THINGS: ResourceType<Thing> = { apiVersion: 'example.com/v1', kind: 'Thing', plural: 'things', namespaced: true };

let tls: TlsMaterial;
let other: TlsMaterial;
beforeAll(async () => {
  [tls, other] = await Promise.all([generateTlsMaterial(), generateTlsMaterial()]);
});

const running: AbortController[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.abort();
});

async function start(server: WebhookServer): Promise<{ port: number; done: Promise<void> }> {
  const stop = new AbortController();
  running.push(stop);
  const done = server.start(stop.signal);
  const { port } = (await server.listening) as AddressInfo;
  return { port, done };
}

function post(port: number, path: string, body: string, o: { ca?: string; contentType?: string; method?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: o.method ?? 'POST', ca: o.ca ?? tls.ca, servername: 'localhost', headers: { 'content-type': o.contentType ?? 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function review(n: number, uid = 'u-1'): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: 'example.com', version: 'v1', kind: 'Thing' },
      resource: { group: 'example.com', version: 'v1', resource: 'things' },
      namespace: 'ns',
      name: 't',
      operation: 'CREATE',
      userInfo: { username: 'bob' },
      object: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'ns' }, spec: { n } },
    },
  });
}

const validate = validatingWebhook({
  resource: THINGS,
  validate: (req) => {
    if (req.object?.spec?.n === 666) throw new Error('handler bug');
    return (req.object?.spec?.n ?? 0) < 0 ? deny('spec.n must not be negative') : allow();
  },
});
const mutate = mutatingWebhook({ resource: THINGS, mutate: (d) => void ((d.spec ??= {}).n ??= 1) });

describe('webhook server', () => {
  let registry: Registry;
  let server: WebhookServer;
  let port: number;
  beforeAll(async () => {
    registry = new Registry();
    server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: [validate, mutate, convertDatabases], registry, maxRequestBytes: 64 * 1024 });
    const stop = new AbortController();
    const done = server.start(stop.signal);
    port = ((await server.listening) as AddressInfo).port;
    return async () => {
      stop.abort();
      await done;
    };
  });

  it('answers admission reviews at each webhook path, over TLS verified with the CA', async () => {
    const allowed = await post(port, validate.path, review(1));
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.body)).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true } });
    const denied = JSON.parse((await post(port, validate.path, review(-1))).body) as { response: { allowed: boolean; status: { message: string } } };
    expect(denied.response.allowed).toBe(false);
    expect(denied.response.status.message).toBe('spec.n must not be negative');
    const patched = JSON.parse((await post(port, mutate.path, JSON.stringify({ ...JSON.parse(review(1)), request: { ...JSON.parse(review(1)).request, object: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' } } } }))).body) as { response: { patch: string } };
    expect(JSON.parse(Buffer.from(patched.response.patch, 'base64').toString())).toEqual([{ op: 'add', path: '/spec', value: { n: 1 } }]);
  });

  it('answers conversion reviews', async () => {
    const body = JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'c', desiredAPIVersion: 'example.com/v2', objects: [{ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'd' }, spec: { team: 'x', sizeGi: 3 } }] },
    });
    const out = JSON.parse((await post(port, '/convert', body)).body) as { response: { convertedObjects: unknown[]; result: { status: string } } };
    expect(out.response.result.status).toBe('Success');
    expect(out.response.convertedObjects).toEqual([{ apiVersion: 'example.com/v2', kind: 'Database', metadata: { name: 'd' }, spec: { owner: { team: 'x' }, storage: { sizeGi: 3 } } }]);
  });

  it('answers every bad request as a denial with a message, and keeps serving', async () => {
    const cases: [string, Promise<{ status: number; body: string }>, number, string][] = [
      ['not JSON', post(port, validate.path, '{nope'), 400, 'the body is not JSON'],
      ['wrong content type', post(port, validate.path, review(1), { contentType: 'text/plain' }), 400, 'bad review (Content-Type): expected application/json, got "text/plain"'],
      ['too large', post(port, validate.path, 'x'.repeat(200 * 1024)), 413, 'request body exceeds the limit of 65536 bytes'],
      ['handler throws', post(port, validate.path, review(666)), 500, 'handler failed: handler bug'],
    ];
    for (const [what, pending, code, message] of cases) {
      const res = await pending;
      expect(res.status, what).toBe(200);
      const r = (JSON.parse(res.body) as { response: { allowed: boolean; status: { code: number; message: string } } }).response;
      expect(r.allowed, what).toBe(false);
      expect(r.status.code, what).toBe(code);
      expect(r.status.message, what).toContain(message);
    }
    expect((await post(port, '/nowhere', review(1))).status).toBe(404);
    expect((await post(port, validate.path, '', { method: 'GET' })).status).toBe(405);
    expect(JSON.parse((await post(port, validate.path, review(2))).body).response.allowed).toBe(true);
  });

  it('records controller-runtime webhook metrics per path, and denials', async () => {
    await post(port, validate.path, review(-5));
    const text = await registry.metrics();
    expect(text).toMatch(new RegExp(`controller_runtime_webhook_requests_total\\{webhook="${validate.path}",code="200"\\} \\d+`));
    expect(text).toContain(`controller_runtime_webhook_latency_seconds_count{webhook="${validate.path}"}`);
    expect(text).toContain(`controller_runtime_webhook_requests_in_flight{webhook="${validate.path}"} 0`);
    expect(text).toMatch(new RegExp(`rxkube_webhook_denials_total\\{webhook="${validate.path}"\\} [1-9]`));
  });

  it('passes its started check once listening', async () => {
    await expect(server.startedCheck()).resolves.toBeUndefined();
    const idle = webhookServer({ port: 0, tls: { cert: tls.cert, key: tls.key }, webhooks: [] });
    await expect(idle.startedCheck()).rejects.toThrow('webhook server is not listening yet');
  });
});

describe('webhook server: abandoned requests and stopping', () => {
  it("aborts a handler's signal when the client goes away, and keeps serving", async () => {
    let seen: AbortSignal | undefined;
    let release: (() => void) | undefined;
    const slow = validatingWebhook({
      resource: THINGS,
      path: '/slow',
      validate: (req, ctx) => {
        if (req.object?.spec?.n !== 1) return allow();
        seen = ctx.signal;
        return new Promise<void>((r) => (release = r));
      },
    });
    const server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: [slow] });
    const { port } = await start(server);
    const req = request({ host: '127.0.0.1', port, path: '/slow', method: 'POST', ca: tls.ca, servername: 'localhost', headers: { 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end(review(1));
    for (let i = 0; i < 200 && seen === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen?.aborted).toBe(false);
    req.destroy();
    for (let i = 0; i < 200 && seen?.aborted !== true; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen?.aborted).toBe(true);
    release?.();
    expect(JSON.parse((await post(port, '/slow', review(2))).body).response.allowed).toBe(true);
  });

  it('stops while a keep-alive client keeps its connection busy: answers in flight say Connection: close', async () => {
    let calls = 0;
    let entered!: () => void;
    const fifthEntered = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held = validatingWebhook({
      resource: THINGS,
      path: '/held',
      validate: async () => {
        if (++calls === 5) {
          entered();
          await released;
        }
        return allow();
      },
    });
    const server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: [held] });
    const stop = new AbortController();
    const done = server.start(stop.signal);
    const { port } = (await server.listening) as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: tls.ca, servername: 'localhost' });
    const connections: (string | undefined)[] = [];
    // Back to back on one connection, as kube-apiserver calls a busy webhook: never idle for long.
    const client = (async () => {
      for (let i = 0; i < 10_000; i++) {
        const header = await new Promise<string | undefined>((resolve) => {
          const req = request({ host: '127.0.0.1', port, path: '/held', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.headers.connection));
          });
          req.on('error', () => resolve('error'));
          req.end(review(1));
        });
        connections.push(header);
        if (header === 'error' || stop.signal.aborted && header === 'close') break;
      }
    })();
    await fifthEntered;
    stop.abort();
    await new Promise((r) => setTimeout(r, 50));
    release();
    const outcome = await Promise.race([done.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open after 8 s'), 8_000))]);
    await client;
    agent.destroy();
    expect(outcome).toBe('closed');
    // The four answers before the stop kept the connection; the one in flight when it began closed it.
    expect(connections).toEqual(['keep-alive', 'keep-alive', 'keep-alive', 'keep-alive', 'close']);
  });

  it('closes what is still open after drainTimeoutMs: a request whose body never ends', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...noopLogger, warn: (msg: string) => void warnings.push(msg), child: () => logger };
    const server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: [validate], drainTimeoutMs: 300, logger });
    const stop = new AbortController();
    const done = server.start(stop.signal);
    const { port } = (await server.listening) as AddressInfo;
    const socket = connect({ host: '127.0.0.1', port, ca: tls.ca, servername: 'localhost' });
    await new Promise((r) => socket.once('secureConnect', r));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(`POST ${validate.path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"half":`);
    await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    const outcome = await Promise.race([done.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open after 8 s'), 8_000))]);
    expect(outcome).toBe('closed');
    await closed;
    expect(warnings).toContain('webhook server: connections still open after the drain timeout, closing them');
  });

  it('refuses a negative drainTimeoutMs', () => {
    expect(() => webhookServer({ tls: { cert: tls.cert, key: tls.key }, webhooks: [], drainTimeoutMs: -1 })).toThrow('drainTimeoutMs must be a non-negative number, got -1');
  });

  it('a server stopped before it started never listens, and says so', async () => {
    const server = webhookServer({ port: 0, tls: { cert: tls.cert, key: tls.key }, webhooks: [] });
    const stop = new AbortController();
    stop.abort();
    await expect(server.start(stop.signal)).resolves.toBeUndefined();
    await expect(server.listening).rejects.toThrow('webhook server stopped before listening');
  });
});

describe('webhook server TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-webhook-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function servedFingerprint(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        const cert = socket.getPeerX509Certificate();
        socket.end();
        resolve(cert?.fingerprint256 ?? '');
      });
      socket.on('error', reject);
    });
  }

  it('re-reads the certificate files when they change, and keeps the old pair while they do not match', async () => {
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, tls.cert);
    writeFileSync(keyFile, tls.key);
    const server = webhookServer({ port: 0, host: '127.0.0.1', tls: { certFile, keyFile, pollIntervalMs: 20 }, webhooks: [validate] });
    const { port } = await start(server);
    const first = new X509Certificate(tls.cert).fingerprint256;
    const second = new X509Certificate(other.cert).fingerprint256;
    expect(await servedFingerprint(port)).toBe(first);
    // Half a rotation: the new certificate with the old key is not used.
    writeFileSync(certFile, other.cert);
    await new Promise((r) => setTimeout(r, 150));
    expect(await servedFingerprint(port)).toBe(first);
    writeFileSync(keyFile, other.key);
    for (let i = 0; i < 100 && (await servedFingerprint(port)) !== second; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await servedFingerprint(port)).toBe(second);
    // Clients trusting the new CA now connect.
    expect(JSON.parse((await post(port, validate.path, review(1), { ca: other.ca })).body).response.allowed).toBe(true);
  });

  it('fails to start, naming the files, when they cannot be read or do not match', async () => {
    const missing = webhookServer({ port: 0, tls: { certFile: join(dir, 'nope.crt'), keyFile: join(dir, 'nope.key') }, webhooks: [] });
    await expect(missing.start(new AbortController().signal)).rejects.toThrow(/webhook TLS \(.*nope\.crt, .*nope\.key\): cannot read the certificate .*nope\.crt/);
    const mismatched = webhookServer({ port: 0, tls: { cert: tls.cert, key: other.key }, webhooks: [] });
    await expect(mismatched.start(new AbortController().signal)).rejects.toThrow(/webhook TLS \(inline\): unusable certificate or key/);
    await expect(mismatched.listening).rejects.toThrow(/unusable certificate or key/);
  });

  it('refuses two webhooks on one path', () => {
    expect(() => webhookServer({ tls: { cert: '', key: '' }, webhooks: [validate, validate] })).toThrow('two webhooks are served at /validate-example-com-v1-thing');
  });
});
