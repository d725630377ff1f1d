/**
 * Hostile kubeconfigs: a token file ending in a newline, a token file rotated under the client,
 * exec credential plugins that hang, fail or print garbage, and CA / key / token files that do
 * not exist. Each must give a working client or a typed error naming the culprit, and leave no
 * process behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { ExecCredentialError } from '../../src/client/credential-errors.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { KubeConfigError } from '../../src/client/kubeconfig-errors.js';
import { json, pod, startFakeApiServer, type FakeApiServer } from './fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A temporary folder, removed after the test. */
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rxkube-hostile-cred-'));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function podServer(): Promise<FakeApiServer> {
  const server = await startFakeApiServer((_req, res) => json(res, 200, pod('a', '1')));
  cleanup.push(() => server.close());
  return server;
}

/** A kubeconfig file for `server` whose user is `user` (YAML fragment lines) and cluster extras. */
function kubeconfigFile(server: string, user: string, cluster = ''): string {
  const file = join(dir(), 'config');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c',
      '  cluster:',
      `    server: ${server}`,
      ...(cluster === '' ? [] : [`    ${cluster}`]),
      'users:',
      '- name: u',
      '  user:',
      `    ${user}`,
      'contexts:',
      '- name: x',
      '  context: {cluster: c, user: u, namespace: default}',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return file;
}

function client(file: string, options: Parameters<typeof KubeClient.fromFile>[1] = {}): KubeClient {
  const c = KubeClient.fromFile(file, { retry: false, ...options });
  cleanup.push(() => c.close());
  return c;
}

/** A clock the test moves; timers still run in real time. */
function movableClock(): { scheduler: SchedulerLike; advance(ms: number): void } {
  let offset = 0;
  const scheduler: SchedulerLike = Object.assign(Object.create(asyncScheduler) as SchedulerLike, { now: () => Date.now() + offset });
  return { scheduler, advance: (ms) => (offset += ms) };
}

/** Whether process `pid` still runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** A plugin that records its pid and its child's pid in `dir`, then hangs. */
function hangingPlugin(d: string): string {
  return `exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: ["-c", "echo $$ > ${d}/pid; sleep 1000 & echo $! > ${d}/child; wait"]}`;
}

describe('hostile kubeconfig: token files', () => {
  it('a token-file ending in a newline works (the token is trimmed)', async () => {
    const server = await podServer();
    const d = dir();
    writeFileSync(join(d, 'token'), 'file-token-1\n');
    const c = client(kubeconfigFile(server.url, `token-file: ${join(d, 'token')}`));
    await expect(c.objects(resources.pods, 'default').get('a')).resolves.toMatchObject({ metadata: { name: 'a' } });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer file-token-1']);
  });

  it('a rotated token file is read again after a minute', async () => {
    const server = await podServer();
    const d = dir();
    writeFileSync(join(d, 'token'), 'old-token\n');
    const clock = movableClock();
    const c = client(kubeconfigFile(server.url, `token-file: ${join(d, 'token')}`), { scheduler: clock.scheduler });
    const pods = c.objects(resources.pods, 'default');
    await pods.get('a');
    writeFileSync(join(d, 'token'), 'new-token\n');
    await pods.get('a'); // within the minute: the token read before
    clock.advance(61_000);
    await pods.get('a');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer old-token', 'Bearer old-token', 'Bearer new-token']);
  });

  it('the in-cluster token file (tokenFile auth provider) is trimmed too', async () => {
    const server = await podServer();
    const d = dir();
    writeFileSync(join(d, 'token'), 'sa-token\n');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'inCluster', server: server.url, skipTLSVerify: false }],
      users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: join(d, 'token') } } }],
      contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser' }],
      currentContext: 'inClusterContext',
    });
    const c = KubeClient.fromKubeConfig(kc, { retry: false });
    cleanup.push(() => c.close());
    await c.objects(resources.pods, 'default').get('a');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sa-token']);
  });
});

describe('hostile kubeconfig: exec credential plugins', () => {
  it('a plugin that hangs is killed (with what it started) after the exec timeout; the error names it', async () => {
    const server = await podServer();
    const d = dir();
    const c = client(kubeconfigFile(server.url, hangingPlugin(d)), { execTimeoutMs: 300 });
    const err = await c.objects(resources.pods, 'default').get('a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err).toMatchObject({ failure: 'timeout', command: 'sh', user: 'u' });
    expect((err as Error).message).toContain('"sh"');
    expect((err as Error).message).toContain('300 ms');
    const pids = ['pid', 'child'].map((f) => Number(readFileSync(join(d, f), 'utf8')));
    expect(await eventually(() => pids.every((p) => !alive(p)))).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('closing the client kills a plugin still running', async () => {
    const server = await podServer();
    const d = dir();
    const c = KubeClient.fromFile(kubeconfigFile(server.url, hangingPlugin(d)), { retry: false, execTimeoutMs: 0 });
    const pending = c.objects(resources.pods, 'default').get('a').catch((e: unknown) => e);
    expect(await eventually(() => existsSync(join(d, 'child')) && readFileSync(join(d, 'child'), 'utf8').trim() !== '')).toBe(true);
    c.close();
    const err = await pending;
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err).toMatchObject({ failure: 'closed' });
    const pids = ['pid', 'child'].map((f) => Number(readFileSync(join(d, f), 'utf8')));
    expect(await eventually(() => pids.every((p) => !alive(p)))).toBe(true);
  });

  it('a plugin still running when the process exits is killed with it', async () => {
    const server = await podServer();
    const d = dir();
    const config = kubeconfigFile(server.url, hangingPlugin(d));
    const script = join(d, 'exit-while-plugin-runs.ts');
    const clientModule = new URL('../../src/client/kube-client.ts', import.meta.url).pathname;
    writeFileSync(
      script,
      [
        `import { existsSync } from 'node:fs';`,
        `import { KubeClient } from ${JSON.stringify(clientModule)};`,
        `const client = KubeClient.fromFile(${JSON.stringify(config)}, { execTimeoutMs: 0 });`,
        `void client.connection.request({ path: '/api/v1/namespaces/default/pods/a' }).catch(() => undefined);`,
        `const t = setInterval(() => { if (existsSync(${JSON.stringify(join(d, 'child'))})) { clearInterval(t); setTimeout(() => process.exit(0), 50); } }, 20);`,
      ].join('\n'),
    );
    const tsx = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(tsx, [script], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
    const pids = ['pid', 'child'].map((f) => Number(readFileSync(join(d, f), 'utf8')));
    expect(await eventually(() => pids.every((p) => !alive(p)))).toBe(true);
  }, 30_000);

  it('a failing plugin: the error names the plugin and quotes its stderr', async () => {
    const server = await podServer();
    const c = client(kubeconfigFile(server.url, `exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: ["-c", "echo 'error: no SSO session for profile dev' >&2; exit 3"]}`));
    const err = await c.objects(resources.pods, 'default').get('a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err).toMatchObject({ failure: 'exit' });
    expect((err as Error).message).toMatch(/"sh".*exited with code 3.*no SSO session for profile dev/);
  });

  it('a plugin printing garbage: a typed error naming the plugin, not a SyntaxError, and no stdout quoted', async () => {
    const server = await podServer();
    const c = client(kubeconfigFile(server.url, `exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: ["-c", "echo secret-ish-garbage; echo warn >&2"]}`));
    const err = await c.objects(resources.pods, 'default').get('a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecCredentialError);
    expect(err).toMatchObject({ failure: 'output', stderr: 'warn' });
    expect((err as Error).message).not.toContain('secret-ish-garbage');
  });
});

describe('hostile kubeconfig: a static token', () => {
  it('with a trailing newline is trimmed; one that cannot be a header value fails at load', async () => {
    const server = await podServer();
    const c = client(kubeconfigFile(server.url, 'token: "static-token\\n"'));
    await c.objects(resources.pods, 'default').get('a');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer static-token']);
    expect(() => KubeClient.fromFile(kubeconfigFile(server.url, 'token: "bad\\u0001token"'))).toThrow(KubeConfigError);
  });
});

describe('hostile kubeconfig: files that do not exist', () => {
  it('a missing CA file fails at load, naming the file', async () => {
    const missing = join(dir(), 'nope', 'ca.crt');
    const file = kubeconfigFile('https://127.0.0.1:1', 'token: abcdef', `certificate-authority: ${missing}`);
    let err: unknown;
    try {
      KubeClient.fromFile(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KubeConfigError);
    expect(err).toMatchObject({ code: 'CLIENT_KUBECONFIG_FILE_MISSING', missingFile: missing, file });
    expect((err as Error).message).toContain(missing);
  });

  it('missing client key and token files fail at load too (fromKubeConfig and fromFile)', () => {
    const missing = join(dir(), 'client.key');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u', certData: 'eA==', keyFile: missing }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    expect(() => KubeClient.fromKubeConfig(kc)).toThrow(KubeConfigError);
    expect(() => KubeClient.fromKubeConfig(kc)).toThrow(missing);
    const tokenFile = join(dir(), 'token');
    expect(() => KubeClient.fromFile(kubeconfigFile('https://127.0.0.1:1', `token-file: ${tokenFile}`))).toThrow(`token-file file ${tokenFile} does not exist`);
  });
});
