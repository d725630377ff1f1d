/**
 * The embedded API server with rxkube-controller-manager and stand-in nodes behaves like a small
 * cluster for kubectl: `create deployment` ends with Ready pods, `scale` and `rollout status`
 * work, a new image rolls out, deleting the deployment removes its ReplicaSets and pods, and a
 * deleted namespace is emptied and removed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import type { UnstructuredObject as KubeObject } from 'rxkube';
import { until } from '../../../test/helpers/until.js';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

// kubectl round trips and pods that become Ready through the controllers and stand-in nodes:
// a longer bound and slower polling than the shared helper's defaults.
const WAIT_MS = 20_000;
const POLL_MS = 50;

const ready = (p: KubeObject): boolean => ((p['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

describe.skipIf(!hasKubectl)('embedded cluster: kubectl against the server with its controller manager', () => {
  let server: ApiServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const kubectl = async (...args: string[]) => (await run('kubectl', args, { env, timeout: 60_000 })).stdout;
  /**
   * `kubectl create <generator> ...`. kubectl sends typed creates as protobuf; while the server
   * answers those 415, the same object goes through `--dry-run=client -o json` and `create -f`.
   */
  const create = async (...args: string[]) => {
    try {
      return await kubectl('create', ...args);
    } catch (err) {
      if (!String((err as { stderr?: string }).stderr ?? err).includes('vnd.kubernetes.protobuf')) throw err;
      const manifest = await kubectl('create', ...args, '--dry-run=client', '-o', 'json');
      const file = join(dir, `manifest-${Date.now()}.json`);
      await writeFile(file, manifest);
      const ns = args[0] === '-n' ? ['-n', args[1] ?? 'default'] : [];
      return kubectl(...ns, 'create', '-f', file);
    }
  };

  beforeAll(async () => {
    server = await startApiServer({ controllers: { standInNodes: 2, podStartupMs: 50 } });
    dir = await mkdtemp(join(tmpdir(), 'rxkube-cluster-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const pods = (ns = 'default') => server.list('v1', 'Pod', ns).filter((p) => p.metadata?.deletionTimestamp === undefined);

  it('kubectl create deployment ends with 3 Ready pods; rollout status succeeds', async () => {
    await create('deployment', 'web', '--image=nginx', '--replicas=3');
    const out = await kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(out).toMatch(/successfully rolled out/);
    const ps = pods();
    expect(ps).toHaveLength(3);
    expect(ps.every(ready)).toBe(true);
    expect(ps.every((p) => typeof (p['spec'] as { nodeName?: string }).nodeName === 'string')).toBe(true);
    expect(server.list('v1', 'Node').map((n) => n.metadata?.name)).toEqual(['node-1', 'node-2']);
  });

  it('kubectl scale resizes the deployment', async () => {
    await kubectl('scale', 'deployment/web', '--replicas=5');
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    await until('5 ready pods', () => pods().filter(ready).length === 5, WAIT_MS, POLL_MS);
    await kubectl('scale', 'deployment/web', '--replicas=2');
    await until('2 pods', () => server.list('v1', 'Pod', 'default').length === 2, WAIT_MS, POLL_MS);
  });

  it('a new image rolls out to a new ReplicaSet; the old one is scaled to 0', async () => {
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    const out = await kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(out).toMatch(/successfully rolled out/);
    const rss = server.list('apps/v1', 'ReplicaSet', 'default');
    expect(rss).toHaveLength(2);
    expect(rss.map((rs) => (rs['spec'] as { replicas: number }).replicas).sort()).toEqual([0, 2]);
    await until('2 new pods', () => pods().length === 2 && pods().every((p) => JSON.stringify(p['spec']).includes('nginx:1.27')) && server.list('v1', 'Pod', 'default').length === 2, WAIT_MS, POLL_MS);
  });

  it('kubectl rollout undo brings the previous template back; rollout history lists the revisions', async () => {
    await kubectl('rollout', 'undo', 'deployment/web');
    const out = await kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(out).toMatch(/successfully rolled out/);
    await until('pods of the old image', () => pods().length === 2 && pods().every((p) => !JSON.stringify(p['spec']).includes('nginx:1.27')) && server.list('v1', 'Pod', 'default').length === 2, WAIT_MS, POLL_MS);
    const history = await kubectl('rollout', 'history', 'deployment/web');
    expect(history).toMatch(/\n2 .*\n3 /s);
  });

  it('kubectl rollout pause holds a template change until resume', async () => {
    await kubectl('rollout', 'pause', 'deployment/web');
    await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.28');
    await new Promise((r) => setTimeout(r, 300));
    expect(server.list('apps/v1', 'ReplicaSet', 'default')).toHaveLength(2);
    await kubectl('rollout', 'resume', 'deployment/web');
    await kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(server.list('apps/v1', 'ReplicaSet', 'default')).toHaveLength(3);
  });

  it('deleting the deployment removes its ReplicaSets and pods (background garbage collection)', async () => {
    await kubectl('delete', 'deployment', 'web');
    await until('no replicasets', () => server.list('apps/v1', 'ReplicaSet', 'default').length === 0, WAIT_MS, POLL_MS);
    await until('no pods', () => server.list('v1', 'Pod', 'default').length === 0, WAIT_MS, POLL_MS);
  });

  it('foreground deletion: the deployment stays until its ReplicaSets and pods are gone', async () => {
    await create('deployment', 'fg', '--image=nginx', '--replicas=2');
    await kubectl('rollout', 'status', 'deployment/fg', '--timeout=30s');
    await kubectl('delete', 'deployment', 'fg', '--cascade=foreground', '--wait=true', '--timeout=30s');
    expect(server.get('apps/v1', 'Deployment', 'fg', 'default')).toBeUndefined();
    expect(server.list('apps/v1', 'ReplicaSet', 'default')).toHaveLength(0);
    expect(server.list('v1', 'Pod', 'default')).toHaveLength(0);
  });

  it('orphan deletion keeps the ReplicaSet, without its owner reference', async () => {
    await create('deployment', 'orph', '--image=nginx', '--replicas=1');
    await kubectl('rollout', 'status', 'deployment/orph', '--timeout=30s');
    await kubectl('delete', 'deployment', 'orph', '--cascade=orphan', '--wait=true', '--timeout=30s');
    const [rs] = server.list('apps/v1', 'ReplicaSet', 'default');
    expect(rs?.metadata?.ownerReferences ?? []).toEqual([]);
    expect(pods()).toHaveLength(1);
    await kubectl('delete', 'replicaset', rs?.metadata?.name ?? '', '--wait=true', '--timeout=30s');
    await until('no pods', () => server.list('v1', 'Pod', 'default').length === 0, WAIT_MS, POLL_MS);
  });

  it('a rollout that cannot progress exceeds its progress deadline; kubectl rollout status fails saying so', async () => {
    const manifest = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'stuck' },
      spec: {
        replicas: 1, progressDeadlineSeconds: 2, selector: { matchLabels: { app: 'stuck' } },
        // No scheduler serves this name, so the pod never runs.
        template: { metadata: { labels: { app: 'stuck' } }, spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    const file = join(dir, 'stuck.json');
    await writeFile(file, JSON.stringify(manifest));
    await kubectl('create', '-f', file);
    const failed = await kubectl('rollout', 'status', 'deployment/stuck', '--timeout=30s').then(
      () => '',
      (err: { stderr?: string }) => err.stderr ?? String(err),
    );
    expect(failed).toMatch(/deployment "stuck" exceeded its progress deadline/);
    const d = server.list('apps/v1', 'Deployment', 'default').find((o) => o.metadata?.name === 'stuck') as KubeObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } };
    expect(d.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
  });

  it('a deleted namespace is emptied by the namespace controller, then removed', async () => {
    await create('namespace', 'tmp');
    await create('-n', 'tmp', 'deployment', 'w', '--image=nginx', '--replicas=2');
    await create('-n', 'tmp', 'configmap', 'c', '--from-literal=a=b');
    await kubectl('-n', 'tmp', 'rollout', 'status', 'deployment/w', '--timeout=30s');
    await kubectl('delete', 'namespace', 'tmp', '--wait=true', '--timeout=30s');
    expect(server.get('v1', 'Namespace', 'tmp')).toBeUndefined();
    expect(server.list('v1', 'Pod', 'tmp')).toHaveLength(0);
    expect(server.list('v1', 'ConfigMap', 'tmp')).toHaveLength(0);
  });
});
