/**
 * The example from laptop to cluster: deploy/rbac.yaml is exactly what the manager derives
 * (`--print-rbac`), the Deployment runs it with the arguments the RBAC was derived for and probes
 * the manager's health port, and a bad target makes the process exit non-zero with one readable
 * line naming the server and the cause.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { rbacYaml } from '../../examples/replicaset-controller/rbac.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const deployment = readFileSync(join(root, 'deploy', 'deployment.yaml'), 'utf8');

describe('deploy/', () => {
  it('rbac.yaml is what the manager derives for the Deployment\'s arguments (regenerate with --print-rbac)', async () => {
    const args = /args: \[(.*)\]/.exec(deployment)?.[1]?.split(',').map((a) => a.trim());
    expect(args).toEqual(['--leader-elect', '--namespace', 'rxkube-demo']);
    const derived = await rbacYaml({ namespace: 'rxkube-demo', leaderElect: true });
    expect(readFileSync(join(root, 'deploy', 'rbac.yaml'), 'utf8')).toBe(derived);
  });

  it('the Deployment probes the manager\'s health port and runs as the derived ServiceAccount, not as root', () => {
    expect(deployment).toMatch(/livenessProbe:\n\s+httpGet:\n\s+path: \/healthz\n\s+port: health/);
    expect(deployment).toMatch(/readinessProbe:\n\s+httpGet:\n\s+path: \/readyz\n\s+port: health/);
    expect(deployment).toMatch(/name: health\n\s+containerPort: 8081/);
    expect(deployment).toMatch(/name: metrics\n\s+containerPort: 8080/);
    expect(deployment).toContain('serviceAccountName: rxkube-replicaset-controller');
    expect(deployment).toContain('runAsNonRoot: true');
    const dockerfile = readFileSync(join(root, 'examples', 'replicaset-controller', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
  });
});

describe('the example against a server that is not there', () => {
  it('exits non-zero within the cache-sync timeout, naming the server and the cause', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const address = srv.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise<void>((r) => srv.close(() => r()));
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-example-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
    );
    const started = Date.now();
    const result = await run(
      process.execPath,
      ['--import', 'tsx', '--conditions=source', 'examples/replicaset-controller/main.ts', '--kubeconfig', kubeconfig, '--cache-sync-timeout', '2', '--metrics-port', '0', '--health-port', '0'],
      { cwd: root, env: { ...process.env, RXKUBE_LOG: 'warn,text' }, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code?: number; stderr?: string }) => ({ code: err.code, stderr: err.stderr ?? '' }),
    );
    expect(result.code).toBe(1);
    const line = result.stderr.split('\n').find((l) => l.startsWith('replicaset-controller: ')) ?? '';
    expect(line).toMatch(/^replicaset-controller: ManagerCacheSyncTimeoutError: caches did not sync within 2s: /);
    expect(line).toContain(`informer Pod/default (server https://127.0.0.1:${port}): last error: GET /api/v1/namespaces/default/pods: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(line).toContain(`informer ReplicaSet/default (server https://127.0.0.1:${port}): last error: GET /apis/apps/v1/namespaces/default/replicasets: connect ECONNREFUSED`);
    expect(result.stderr).toMatch(/WARN {2}list\/watch failed, retrying component=cache informer=(Pod|ReplicaSet)\/default/);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);

  it('--kubeconfig naming a missing file exits non-zero naming the file', async () => {
    const result = await run(process.execPath, ['--import', 'tsx', '--conditions=source', 'examples/replicaset-controller/main.ts', '--kubeconfig', '/nope/config'], {
      cwd: root,
      timeout: 30_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code?: number; stderr?: string }) => ({ code: err.code, stderr: err.stderr ?? '' }),
    );
    expect(result).toEqual({ code: 1, stderr: 'replicaset-controller: KubeConfigError: kubeconfig file /nope/config does not exist\n' });
  }, 40_000);
});
