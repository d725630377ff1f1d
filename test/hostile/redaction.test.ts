/**
 * Hostile server: answers that quote the client's own bearer token back, through every error path
 * (Status errors, non-JSON bodies, truncated JSON, watch ERROR events, garbage watch lines). The
 * token must never appear in an error's message, `inspect` output or JSON, in a reflector status,
 * or in a log line. The token-echo cases run over both transports (KubeConnection, FetchConnection).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import fc from 'fast-check';
import { firstValueFrom, Subscription, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { fetchClient } from '../../src/client/fetch-client.js';
import { watchEventError } from '../../src/client/watch-event-error.js';
import { jsonLogger } from '../../src/logging/json-logger.js';
import { textLogger } from '../../src/logging/text-logger.js';
import { reflector } from '../../src/reflector/reflector.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { json, pod, podList, startFakeApiServer, type FakeApiServer } from './fake-api-server.js';

type Path = 'status' | 'notJsonError' | 'notJson200' | 'truncated200' | 'watchErrorEvent' | 'watchGarbageLine' | 'watchTruncatedLine';

interface Scenario {
  readonly path: Path;
  readonly code: number;
  readonly before: string;
  readonly after: string;
}

let scenario: Scenario = { path: 'status', code: 500, before: '', after: '' };
let server: FakeApiServer;
let client: KubeClient;

function quoted(): string {
  return `${scenario.before}${server.token}${scenario.after}`;
}

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://fake');
  const watching = url.searchParams.get('watch') === 'true';
  const text = quoted();
  const { path, code } = scenario;
  if (path.startsWith('watch')) {
    if (!watching) return json(res, 200, podList([pod('a', '1')], '1'));
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path === 'watchErrorEvent') {
      const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason: text, message: text, details: { name: text, causes: [{ message: text, field: text }] } };
      res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    } else if (path === 'watchGarbageLine') {
      res.end(`not json ${text}\n`);
    } else {
      res.end(`{"type":"ADDED","object":{"metadata":{"name":${JSON.stringify(text)}`);
    }
    return;
  }
  if (path === 'status') {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason: text, message: text, details: { name: text, kind: text, causes: [{ reason: text, message: text, field: text }] } };
    return json(res, code, status);
  }
  if (path === 'notJsonError') {
    res.writeHead(code, { 'content-type': 'text/html' });
    return void res.end(`<html>${text}</html>`);
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  if (path === 'notJson200') return void res.end(`<html>${text}</html>`);
  res.end(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":${JSON.stringify(text)}`);
}

beforeAll(async () => {
  server = await startFakeApiServer(answer);
  client = KubeClient.fromKubeConfig(server.kubeConfig, { retry: false });
});

afterAll(async () => {
  client.close();
  await server.close();
});

/** Everything a user could see of `value`: its text, its inspection, its JSON. */
function renderings(value: unknown): string[] {
  const out = [String(value), inspect(value, { depth: 10 }), inspect(value, { depth: 10, showHidden: true })];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch {
    // cycles: inspect covers them
  }
  if (value instanceof Error) out.push(value.message, value.stack ?? '');
  return out;
}

/** Runs every client path that reads this scenario's answer; returns what surfaced. */
async function surface(): Promise<unknown[]> {
  const seen: unknown[] = [];
  const pods = client.objects(resources.pods, 'default');
  if (!scenario.path.startsWith('watch')) {
    seen.push(await pods.list({ retry: false }).catch((e: unknown) => e));
    seen.push(await pods.get('a', { retry: false }).catch((e: unknown) => e));
    seen.push(await firstValueFrom(client.listWatcher(resources.pods, { namespace: 'default' }).list({})).catch((e: unknown) => e));
  } else {
    const events = await firstValueFrom(
      client.listWatcher(resources.pods, { namespace: 'default' }).watch({ resourceVersion: '1' }).pipe(toArray()),
    ).catch((e: unknown) => e);
    seen.push(events);
    if (Array.isArray(events)) for (const e of events as WatchEvent<KubeObject>[]) seen.push(watchEventError(e));
  }
  // the reflector: its error statuses (what errors$ and /readyz are built from)
  const statuses: ReflectorStatus[] = [];
  let sub = new Subscription();
  await new Promise<void>((resolve) => {
    const r = reflector(client.listWatcher(resources.pods, { namespace: 'default' }), {
      status: {
        next: (s) => {
          statuses.push(s);
          if (s.type === 'error' || s.type === 'backingOff') resolve();
        },
      },
    });
    sub.add(r.events$.subscribe({ next: (e) => seen.push(e), error: (e: unknown) => (seen.push(e), resolve()) }));
    setTimeout(resolve, 2000);
  });
  sub.unsubscribe();
  seen.push(...statuses);
  // an informer: its errors$ (ListWatchError wrapping the client's error)
  sub = new Subscription();
  await new Promise<void>((resolve) => {
    const informer = sharedInformer({ listWatcher: client.listWatcher(resources.pods, { namespace: 'default' }) });
    const run = new Subscription();
    run.add(
      informer.errors$.subscribe((e) => {
        seen.push(e);
        resolve();
      }),
    );
    run.add(informer.run$.subscribe({ error: (e: unknown) => (seen.push(e), resolve()) }));
    setTimeout(resolve, 2000);
    sub.add(run);
  });
  sub.unsubscribe();
  return seen;
}

/** The renderings of everything that surfaced for `s`, and the log lines written about it, that contain the token. */
async function leaksOf(s: Scenario): Promise<string[]> {
  scenario = s;
  const seen = await surface();
  const lines: string[] = [];
  const json = jsonLogger({ write: (l) => lines.push(l), level: 'debug' });
  const text = textLogger({ write: (l) => lines.push(l), level: 'debug' });
  for (const value of seen) {
    json.error('request failed', { err: value });
    text.error('request failed', { err: value });
    if (value instanceof Error) json.error(value.message);
  }
  return [...seen.flatMap(renderings), ...lines].filter((t) => t.includes(server.token));
}

const PATHS: readonly Path[] = ['status', 'notJsonError', 'notJson200', 'truncated200', 'watchErrorEvent', 'watchGarbageLine', 'watchTruncatedLine'];

/** The transports whose errors are checked: each makes a client of the fake server with its token. */
const TRANSPORT_CLIENTS: ReadonlyArray<readonly [string, () => KubeClient]> = [
  ['node (KubeConnection)', () => KubeClient.fromKubeConfig(server.kubeConfig, { retry: false })],
  ['fetch (FetchConnection)', () => fetchClient({ server: server.url, token: server.token, retry: false })],
];

describe.each(TRANSPORT_CLIENTS)('hostile: a server quoting the bearer token back, %s', (_name, makeClient) => {
  let previous: KubeClient;
  beforeAll(() => {
    previous = client;
    client = makeClient();
  });
  afterAll(() => {
    client.close();
    client = previous;
  });

  it.each(PATHS)('%s: the token appears nowhere', async (path) => {
    expect(await leaksOf({ path, code: 500, before: 'echo: ', after: ' (end)' })).toEqual([]);
  });

  it('never lets the token into errors, inspect output, JSON, reflector statuses or logs', async () => {
    const text = fc.string({ maxLength: 40, unit: 'grapheme-ascii' });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          path: fc.constantFrom(...PATHS),
          code: fc.constantFrom(400, 401, 403, 404, 409, 410, 422, 429, 500, 503, 504),
          before: text,
          after: text,
        }),
        async (s) => {
          expect(await leaksOf(s)).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('hostile: every kind of credential is masked, not only bearer tokens from the kubeconfig', () => {
  const secretOf = {
    basicPassword: 'pw-Basic-9f3e1a77',
    execToken: 'exec-token-5b7d0c21',
    tokenFileToken: 'file-token-2c8a4e90',
  };

  async function echoServer(secret: string): Promise<FakeApiServer> {
    const s = await startFakeApiServer((_req, res) => json(res, 403, { kind: 'Status', status: 'Failure', code: 403, reason: 'Forbidden', message: `you sent ${secret}` }));
    return s;
  }

  async function errorWith(kc: KubeConfig, s: FakeApiServer): Promise<unknown> {
    const c = KubeClient.fromKubeConfig(kc, { retry: false });
    try {
      return await c.objects(resources.pods, 'default').get('a').catch((e: unknown) => e);
    } finally {
      c.close();
      await s.close();
    }
  }

  function kubeConfig(server: string, user: Record<string, unknown>): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server, skipTLSVerify: true }],
      users: [{ name: 'u', ...user }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: 'default' }],
      currentContext: 'x',
    });
    return kc;
  }

  function check(err: unknown, secret: string): void {
    expect(err).toMatchObject({ statusCode: 403 });
    const lines: string[] = [];
    jsonLogger({ write: (l) => lines.push(l) }).error('failed', { err });
    for (const text of [...renderings(err), ...lines]) expect(text).not.toContain(secret);
    // and once known, the bare value is masked in any later log line
    const later: string[] = [];
    jsonLogger({ write: (l) => later.push(l) }).info(`value ${secret}`);
    expect(later.join('')).not.toContain(secret);
  }

  it('a basic-auth password', async () => {
    const s = await echoServer(secretOf.basicPassword);
    check(await errorWith(kubeConfig(s.url, { username: 'admin', password: secretOf.basicPassword }), s), secretOf.basicPassword);
  });

  it('a token printed by an exec plugin', async () => {
    const s = await echoServer(secretOf.execToken);
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: secretOf.execToken } });
    const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `printf '%s' '${credential}'`], interactiveMode: 'Never' };
    check(await errorWith(kubeConfig(s.url, { exec }), s), secretOf.execToken);
  });

  it('a token read from a token file', async () => {
    const s = await echoServer(secretOf.tokenFileToken);
    const folder = mkdtempSync(join(tmpdir(), 'rxkube-redact-'));
    const file = join(folder, 'token');
    writeFileSync(file, `${secretOf.tokenFileToken}\n`);
    try {
      check(await errorWith(kubeConfig(s.url, { authProvider: { name: 'tokenFile', config: { tokenFile: file } } }), s), secretOf.tokenFileToken);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
