/**
 * RBAC that cannot drift, on a real kube-apiserver: the ReplicaSet controller example runs as a
 * ServiceAccount whose only permissions are the RBAC manifest its manager derives
 * (`--print-rbac`, applied with kubectl) and converges a ReplicaSet — pods created, adopted,
 * deleted, status written, Events recorded, leadership held on a Lease. A write outside those rules
 * is refused with 403 Forbidden naming the verb and the resource.
 *
 * kube-apiserver enforces RBAC only with `--authorization-mode=…RBAC…`. The shared apiserver
 * (shared/kube-apiserver/start.sh) runs with it; should it not (or with RXKUBE_E2E_RBAC_OWN_SERVER=1),
 * this file starts a second apiserver with `--authorization-mode=Node,RBAC` and stops it after.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../src/client/api-error.js';
import { ApiError } from '../../src/client/api-error.js';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { jsonLogger } from '../../src/logging/json-logger.js';
import type { Manager } from '../../src/manager/manager.js';
import { runReplicaSetExample } from '../../examples/replicaset-controller/demo.js';
import { rbacYaml } from '../../examples/replicaset-controller/rbac.js';
import { controllerRef, isActive, PODS, REPLICA_SETS, type Pod, type ReplicaSet } from '../../packages/controller-manager/src/replicaset/types.js';
import { convergeWithin, e2eDir, e2eShared, hasCluster } from './helpers/cluster.js';

const run = promisify(execFile);
const NAMESPACES = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false } as const;
const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;
const SECRETS = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true } as const;
const SA = 'rxkube-replicaset-controller';

/** Whether the shared apiserver's command line enables RBAC (the last --authorization-mode wins). */
function sharedEnforcesRbac(): boolean {
  if (process.env.RXKUBE_E2E_RBAC_OWN_SERVER === '1') return false;
  try {
    const cmd = readFileSync(join(e2eDir, 'apiserver.cmd'), 'utf8');
    const modes = [...cmd.matchAll(/--authorization-mode[= ]"?([^"\s]+)/g)].map((m) => m[1] ?? '');
    return (modes.at(-1) ?? '').split(',').includes('RBAC');
  } catch {
    return false;
  }
}

/**
 * Starts a second apiserver with RBAC; resolves with its folder and kubeconfig path. start.sh may
 * already pass `--authorization-mode=RBAC` (kube-apiserver refuses a mode given twice): the flag
 * is added only when it does not.
 */
async function startRbacApiServer(): Promise<{ dir: string; kubeconfig: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-rbac-apiserver-'));
  const script = join(e2eShared, 'kube-apiserver', 'start.sh');
  const hasRbac = /--authorization-mode=\S*RBAC/.test(readFileSync(script, 'utf8'));
  try {
    const { stdout } = await run('bash', [script, dir], {
      env: { ...process.env, KUBE_APISERVER_FLAGS: hasRbac ? '' : '--authorization-mode=Node,RBAC' },
      timeout: 240_000,
    });
    const last = stdout.trim().split('\n').at(-1) ?? '';
    return { dir, kubeconfig: last.replace(/^KUBECONFIG=/, '') };
  } catch (err) {
    await run('bash', [join(e2eShared, 'kube-apiserver', 'stop.sh'), dir], { timeout: 60_000 }).catch(() => undefined);
    throw err;
  }
}

function kubectlApply(kubeconfig: string, manifest: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['apply', '-f', '-'], { env: { ...process.env, KUBECONFIG: kubeconfig } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl apply exited ${code}: ${out}`))));
    child.stdin.end(manifest);
  });
}

/** A kubeconfig for `token` on the admin kubeconfig's cluster (same server and CA). */
function tokenKubeConfig(admin: KubeConfig, token: string): KubeConfig {
  const cluster = admin.getCurrentCluster();
  if (cluster === null) throw new Error('admin kubeconfig has no cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: SA, token }],
    contexts: [{ name: SA, cluster: cluster.name, user: SA }],
    currentContext: SA,
  });
  return kc;
}

describe.skipIf(!hasCluster)('the example under its derived RBAC on a real kube-apiserver', () => {
  const ns = `rbac-e2e-${randomBytes(3).toString('hex')}`;
  let own: { dir: string; kubeconfig: string } | undefined;
  let adminConfig: KubeConfig;
  let admin: KubeClient;
  let controllerClient: KubeClient;
  let manifest = '';
  let applied = '';
  const records: Record<string, unknown>[] = [];
  const stop = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  let mgr: Manager | undefined;

  beforeAll(async () => {
    if (!sharedEnforcesRbac()) own = await startRbacApiServer();
    adminConfig = new KubeConfig();
    adminConfig.loadFromFile(own?.kubeconfig ?? process.env.KUBECONFIG ?? '');
    admin = KubeClient.fromKubeConfig(adminConfig);
    await admin.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

    // The manifest the example prints, applied as is.
    manifest = await rbacYaml({ namespace: ns, leaderElect: true, simulateKubelet: true });
    applied = await kubectlApply(own?.kubeconfig ?? process.env.KUBECONFIG ?? '', manifest);

    // A token of the ServiceAccount (TokenRequest; no controller-manager runs to fill token Secrets).
    const request = await admin.connection.request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/serviceaccounts/${SA}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    controllerClient = KubeClient.fromKubeConfig(tokenKubeConfig(adminConfig, request.status.token));

    running = runReplicaSetExample({
      client: controllerClient,
      namespace: ns,
      simulateKubelet: true,
      write: false,
      signal: stop.signal,
      manager: {
        logger: jsonLogger({ write: (l) => records.push(JSON.parse(l) as Record<string, unknown>), level: 'info' }),
        leaderElection: { id: 'rxkube-replicaset-controller', namespace: ns, leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 1_000 },
        cacheSyncTimeoutMs: 60_000,
        gracefulShutdownTimeoutMs: 5_000,
      },
      onManager: (m) => (mgr = m),
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    await mgr?.elected();
  }, 300_000);

  afterAll(async () => {
    stop.abort();
    await running;
    await admin?.objects(NAMESPACES).delete(ns).catch(() => undefined);
    controllerClient?.close();
    admin?.close();
    if (own !== undefined) await run('bash', [join(e2eShared, 'kube-apiserver', 'stop.sh'), own.dir], { timeout: 60_000 });
  }, 120_000);

  it('applied only a Role, a RoleBinding and the ServiceAccount in the namespace', () => {
    expect(applied).toContain(`serviceaccount/${SA} created`);
    expect(applied).toContain(`role.rbac.authorization.k8s.io/${SA} created`);
    expect(applied).toContain(`rolebinding.rbac.authorization.k8s.io/${SA} created`);
    expect(manifest).not.toContain('ClusterRole');
  });

  it('converges a ReplicaSet (create, scale up, scale down) with those permissions alone', async () => {
    const replicaSets = admin.objects<ReplicaSet>(REPLICA_SETS, ns);
    const pods = admin.objects<Pod>(PODS, ns);
    await replicaSets.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    const converged = (want: number) => async (): Promise<string[]> => {
      const rs = await replicaSets.get('web');
      const owned = (await pods.list()).items.filter((p) => controllerRef(p)?.uid === rs.metadata?.uid && isActive(p));
      const problems: string[] = [];
      if (owned.length !== want) problems.push(`${owned.length} active pods, want ${want}`);
      if (rs.status?.availableReplicas !== want) problems.push(`status.availableReplicas ${rs.status?.availableReplicas}, want ${want}`);
      return problems;
    };
    try {
      await convergeWithin(60_000, converged(3));
    } catch (err) {
      // The manager's own account of what went wrong (its logs, or why it stopped).
      console.log(records.map((r) => JSON.stringify(r)).join('\n'), await Promise.race([running, new Promise((r) => setTimeout(() => r('(running)'), 10))]));
      throw err;
    }
    await replicaSets.patch('web', { spec: { replicas: 1 } }, 'merge');
    await convergeWithin(60_000, converged(1));
    // An orphan matching the selector is adopted (a patch of the pod).
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
    await convergeWithin(60_000, converged(1));

    const events = await admin.objects(resources.eventsV1, ns).list();
    expect(events.items.map((e) => e.reason)).toEqual(expect.arrayContaining(['SuccessfulCreate', 'SuccessfulDelete']));
    const lease = await admin.objects(resources.leases, ns).get('rxkube-replicaset-controller');
    expect(lease.spec?.holderIdentity).toBeTruthy();

    const forbidden = records.filter((r) => JSON.stringify(r).includes('Forbidden'));
    expect(forbidden).toEqual([]);
    expect(records.map((r) => r['msg'])).toEqual(expect.arrayContaining(['caches synced', 'became leader', 'Starting workers']));
  }, 200_000);

  it('a write outside the derived rules is refused with 403 naming the verb and the resource', async () => {
    const err = await controllerClient
      .objects(CONFIG_MAPS, ns)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-allowed' } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 403, reason: 'Forbidden' });
    expect((err as Error).message).toContain(`User "system:serviceaccount:${ns}:${SA}" cannot create resource "configmaps" in API group "" in the namespace "${ns}"`);
    // Errors that point at the fix: kube-apiserver's message read back, and the rule that allows the write.
    const forbidden = err as ApiError;
    expect(forbidden.denied).toEqual({ user: `system:serviceaccount:${ns}:${SA}`, verb: 'create', resource: 'configmaps', apiGroup: '', namespace: ns });
    expect(forbidden.rbacRule).toMatchObject({
      role: 'Role',
      binding: 'RoleBinding',
      namespace: ns,
      rule: { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
      subject: { kind: 'ServiceAccount', namespace: ns, name: SA },
    });
    expect(forbidden.message).toContain(`(POST ${controllerClient.connection.server.origin}`);
    expect(forbidden.message).toContain(
      `ServiceAccount ${ns}/${SA} may not create configmaps in namespace ${ns}. To allow it, add this rule to a Role in namespace ${ns} and bind that Role to ServiceAccount ${ns}/${SA} with a RoleBinding:\n    - apiGroups: [""]\n      resources: ["configmaps"]\n      verbs: ["create"]`,
    );

    const list = await controllerClient.objects(SECRETS, ns).list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((list as Error).message).toContain('cannot list resource "secrets"');
    // Reads it has in its own namespace only: pods of another namespace are refused too.
    const elsewhere = await controllerClient.objects(PODS, 'default').list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((elsewhere as Error).message).toContain('cannot list resource "pods" in API group "" in the namespace "default"');
    expect(isNotFound(elsewhere)).toBe(false);
  });
});
