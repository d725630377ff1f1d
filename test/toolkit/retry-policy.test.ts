/**
 * Request retries: 429, 503 and 504 are retried with backoff honouring Retry-After, bounded,
 * cancellable by the AbortSignal; a create (POST) only on 429. Against the embedded API server's
 * fault injection, with the retry waits on a scheduler that records them.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnectionOptions } from '../../src/client/kube-connection.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs } from '../../src/client/retry-policy.js';
import { startApiServer, type ApiServer } from '../../packages/testkit/src/api-server/start-api-server.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const failure = (code: number, retryAfterSeconds?: number): ApiError =>
  new ApiError({ code }, retryAfterSeconds === undefined ? { code } : { code, retryAfterSeconds });

describe('retryDelayMs', () => {
  const p = { ...DEFAULT_RETRY_POLICY, jitter: 0 };
  it('adds up to `jitter` of the delay at random', () => {
    expect(retryDelayMs({ ...DEFAULT_RETRY_POLICY, random: () => 0.5 }, failure(503), 'GET', 1)).toBe(550);
    expect(retryDelayMs({ ...DEFAULT_RETRY_POLICY, jitter: 1, random: () => 0.99 }, failure(429, 1), 'POST', 1)).toBe(1990);
  });
  it('backs off exponentially on 429, 503 and 504, for at most maxAttempts attempts', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(p, failure(503), 'GET', a))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelayMs(p, failure(504), 'PUT', 1)).toBe(500);
    expect(retryDelayMs(p, failure(429), 'DELETE', 1)).toBe(500);
    expect(retryDelayMs(p, failure(503), 'GET', 5)).toBeUndefined();
  });
  it('waits at least Retry-After, and gives up when it is longer than maxDelayMs', () => {
    expect(retryDelayMs(p, failure(429, 3), 'GET', 1)).toBe(3000);
    expect(retryDelayMs(p, failure(429, 3), 'GET', 4)).toBe(4000);
    expect(retryDelayMs(p, failure(429, 31), 'GET', 1)).toBeUndefined();
  });
  it('retries a POST only on 429 (the server did not act on it); other errors never', () => {
    expect(retryDelayMs(p, failure(429), 'POST', 1)).toBe(500);
    expect(retryDelayMs(p, failure(503), 'POST', 1)).toBeUndefined();
    expect(retryDelayMs(p, failure(504), 'POST', 1)).toBeUndefined();
    expect(retryDelayMs(p, failure(500), 'GET', 1)).toBeUndefined();
    expect(retryDelayMs(p, failure(409), 'PUT', 1)).toBeUndefined();
    expect(retryDelayMs(p, new Error('socket hang up'), 'GET', 1)).toBeUndefined();
  });
});

describe('request retries against the embedded API server', () => {
  let server: ApiServer;
  let waits: number[];
  /** Records every retry wait and runs it after 1 ms of real time. */
  const recording: SchedulerLike = {
    now: () => asyncScheduler.now(),
    schedule: (work, delay) => {
      waits.push(delay ?? 0);
      return asyncScheduler.schedule(work as never, 1);
    },
  };
  // The recording scheduler runs every timer after 1 ms: the connection's own timeouts (which run
  // on it too) are turned off so that only retry waits are recorded.
  const noTimeouts = { requestTimeoutMs: 0, connectTimeoutMs: 0, tlsHandshakeTimeoutMs: 0 };
  const clientWith = (options: KubeConnectionOptions): KubeClient =>
    KubeClient.fromKubeConfig(server.kubeConfig, { ...noTimeouts, ...options, ...(options.retry === false ? {} : { retry: { jitter: 0, ...options.retry } }) });

  beforeAll(async () => {
    server = await startApiServer();
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r', namespace: 'default' } });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    waits = [];
    server.faults.clear();
    server.requests.clear();
  });

  it('a GET answered 503 twice succeeds on the third attempt, after 500 and 1000 ms', async () => {
    const client = clientWith({ scheduler: recording });
    server.faults.failNext({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/r', code: 503, count: 2 });
    await expect(client.objects(CM, 'default').get('r')).resolves.toMatchObject({ metadata: { name: 'r' } });
    expect(waits).toEqual([500, 1000]);
    expect(server.requests.count({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/r' })).toBe(3);
    client.close();
  });

  it('a 429 with Retry-After: 2 waits 2 s; the error surfaces once attempts run out', async () => {
    const client = clientWith({ scheduler: recording, retry: { maxAttempts: 3 } });
    server.faults.failNext({ method: 'PUT', code: 429, retryAfterSeconds: 2, count: 10 });
    const err = await client.objects(CM, 'default').replace({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r' }, data: { a: '1' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 429, retryAfterSeconds: 2 });
    expect(waits).toEqual([2000, 2000]);
    expect(server.requests.count({ method: 'PUT' })).toBe(3);
    client.close();
  });

  it('a create is retried after 429 but not after 503 (it may have happened)', async () => {
    const client = clientWith({ scheduler: recording });
    const cms = client.objects(CM, 'default');
    server.faults.failNext({ method: 'POST', code: 503 });
    await expect(cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p1' } })).rejects.toMatchObject({ statusCode: 503 });
    expect(server.requests.count({ method: 'POST' })).toBe(1);
    server.faults.failNext({ method: 'POST', code: 429 });
    await expect(cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p2' } })).resolves.toMatchObject({ metadata: { name: 'p2' } });
    expect(server.requests.count({ method: 'POST' })).toBe(3);
    client.close();
  });

  it('retry: false per call or per connection turns retries off', async () => {
    const client = clientWith({ scheduler: recording, retry: false });
    server.faults.failNext({ method: 'GET', code: 503 });
    await expect(client.objects(CM, 'default').get('r')).rejects.toMatchObject({ statusCode: 503 });
    const retrying = clientWith({ scheduler: recording });
    server.faults.failNext({ method: 'GET', code: 503 });
    await expect(retrying.objects(CM, 'default').get('r', { retry: false })).rejects.toMatchObject({ statusCode: 503 });
    expect(waits).toEqual([]);
    client.close();
    retrying.close();
  });

  it('aborting the signal ends a wait between attempts at once', async () => {
    const client = clientWith({ retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 } }); // real time: a minute
    server.faults.failNext({ method: 'GET', code: 504, count: 5 });
    const abort = new AbortController();
    const started = Date.now();
    const pending = client.objects(CM, 'default').get('r', { signal: abort.signal }).catch((e: unknown) => e);
    while (server.requests.count({ method: 'GET' }) === 0) await new Promise((r) => setTimeout(r, 5));
    abort.abort(new Error('stop'));
    expect(await pending).toMatchObject({ message: 'stop' });
    expect(Date.now() - started).toBeLessThan(5_000);
    client.close();
  });
});
