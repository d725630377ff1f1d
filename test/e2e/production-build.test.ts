/**
 * The example as it ships (examples/replicaset-controller/Dockerfile, without docker): compiled
 * to JavaScript, next to the production dependencies only (the lockfile's non-dev packages, what
 * `npm ci --omit=dev` installs, with the workspace packages it imports — `@rxkube/controller-manager`
 * and, for its embedded default, `@rxkube/testkit` — as their builds), run with plain `node` from
 * `dist`. It plays its scenario against
 * the embedded API server and exits 0; `--print-rbac` prints deploy/rbac.yaml; against a server
 * that is not there it exits 1 within its cache-sync timeout, naming the server and the cause.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
let app = '';

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function node(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeout = 60_000): Promise<Outcome> {
  return exec(process.execPath, ['dist/examples/replicaset-controller/main.js', ...args], {
    cwd: app,
    timeout,
    // A clean environment: no KUBECONFIG, no tsx loader, no source condition.
    env: { PATH: process.env.PATH ?? '', HOME: app, NODE_ENV: 'production', ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
}

/** Copies the lockfile's production packages (not `dev`) from node_modules, as `npm ci --omit=dev` would install them. */
function installProductionDependencies(target: string): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> }>;
  };
  // The peers (rxjs, prom-client) are the application's own dependencies: installed with it, so
  // they and what they need count as production here although the lockfile marks them dev.
  const peers = new Set<string>();
  const addWithDependencies = (name: string): void => {
    const path = `node_modules/${name}`;
    if (peers.has(path) || lock.packages[path] === undefined) return;
    peers.add(path);
    for (const dep of Object.keys(lock.packages[path]?.dependencies ?? {})) addWithDependencies(dep);
  };
  for (const peer of Object.keys(lock.packages['']?.peerDependencies ?? {})) addWithDependencies(peer);
  const copied: string[] = [];
  for (const [path, meta] of Object.entries(lock.packages) as Array<[string, { dev?: boolean; optional?: boolean; link?: boolean }]>) {
    // Workspace links (rxkube itself, the packages under packages/) are laid out below from their builds.
    if (path === '' || meta.link === true || !path.startsWith('node_modules/') || (meta.dev === true && !peers.has(path))) continue;
    const from = join(root, path);
    if (!existsSync(from)) {
      if (meta.optional === true) continue;
      throw new Error(`${path} is in the lockfile but not installed`);
    }
    // Nested node_modules are listed (and copied) on their own.
    cpSync(from, join(target, path), { recursive: true, dereference: true, filter: (src) => src === from || !src.slice(from.length).includes('/node_modules/') });
    copied.push(path);
  }
  return copied;
}

describe('the built example with production dependencies only', () => {
  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), 'rxkube-app-'));
    await exec(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'examples/replicaset-controller/tsconfig.build.json', '--outDir', join(app, 'dist')], {
      cwd: root,
      timeout: 240_000,
    });
    cpSync(join(root, 'package.json'), join(app, 'package.json'));
    const copied = installProductionDependencies(app);
    // The workspace packages the example imports, as npm would install their tarballs: package.json
    // and dist/ (built against rxkube's declarations), and rxkube itself as the app (its dist/).
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    // Each package builds against the declarations of those before it (the repo's dist/ folders).
    await exec(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, timeout: 240_000 });
    symlinkSync(app, join(app, 'node_modules', 'rxkube'));
    mkdirSync(join(app, 'node_modules', '@rxkube'), { recursive: true });
    for (const name of ['controller-manager', 'testkit']) {
      const dir = join(root, 'packages', name);
      const out = join(app, 'node_modules', '@rxkube', name);
      cpSync(join(dir, 'package.json'), join(out, 'package.json'));
      await exec(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir, timeout: 240_000 });
      cpSync(join(dir, 'dist'), join(out, 'dist'), { recursive: true });
      copied.push(`node_modules/@rxkube/${name}`);
    }
    expect(copied).toContain('node_modules/rxjs');
    expect(copied).not.toContain('node_modules/typescript');
    expect(copied).not.toContain('node_modules/tsx');
  }, 600_000);

  afterAll(() => {
    if (app !== '') rmSync(app, { recursive: true, force: true });
  });

  it('runs its scenario against the embedded API server and exits 0', async () => {
    const started = Date.now();
    const r = await node([], {}, 120_000);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/done: 6 steps converged, \d+ syncs/);
    console.log(`production build: scenario in ${Date.now() - started} ms`);
  }, 150_000);

  it('--print-rbac prints deploy/rbac.yaml', async () => {
    const r = await node(['--print-rbac', '--leader-elect', '--namespace', 'rxkube-demo']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(root, 'deploy', 'rbac.yaml'), 'utf8'));
  });

  it('exits 1 within its cache-sync timeout against a server that is not there, naming it and the cause', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const address = srv.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise<void>((r) => srv.close(() => r()));
    const kubeconfig = join(app, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:${port}"}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
    );
    const started = Date.now();
    const r = await node(['--cache-sync-timeout', '2', '--metrics-port', '0', '--health-port', '0'], { KUBECONFIG: kubeconfig, RXKUBE_LOG: 'info' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^replicaset-controller: ManagerCacheSyncTimeoutError: caches did not sync within 2s: .*informer Pod/default \\(server https://127\\.0\\.0\\.1:${port}\\): last error: .*ECONNREFUSED`, 'm'));
    // Not a terminal: the default logger writes JSON lines.
    const records = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((x) => x['msg'])).toEqual(expect.arrayContaining(['Starting manager', 'list/watch failed, retrying', 'caches did not sync in time, stopping', 'manager stopped']));
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('outside a pod, --in-cluster exits 1 naming the missing variable', async () => {
    const r = await node(['--in-cluster']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^replicaset-controller: InClusterConfigError: not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set/);
  });
});
