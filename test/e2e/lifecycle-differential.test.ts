/**
 * Differential lifecycle test: rxkube-controller-manager (with stand-in nodes) runs against the
 * embedded API server and against a real kube-apiserver 1.20 that runs no controllers of its
 * own; one scenario (a Deployment rolled out, scaled through /scale, updated, pods deleted
 * gracefully, background / foreground / orphan deletion, a namespace deleted) must end with the
 * same outcomes on both. Against the embedded server alone when no real server is there.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError, KubeClient, resources, type K8s } from '../../src/index.js';
import { startControllerManager, type RunningControllerManager } from '../../packages/controller-manager/src/index.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { convergeWithin, hasCluster } from './helpers/cluster.js';

type Scale = { kind: string; apiVersion: string; spec: { replicas: number }; status: { replicas: number; selector?: string } };

const isReady = (p: K8s.Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function deployment(name: string, replicas: number, image: string): K8s.Deployment {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return `${err.statusCode} ${err.reason} ${(err.status.details?.causes ?? []).map((c) => c.reason).join(',')}`.trim();
    throw err;
  }
}

/** The scenario; returns what it observed, in a form comparable across servers. */
async function scenario(client: KubeClient, ns: string): Promise<string[]> {
  const seen: string[] = [];
  const note = (s: string): void => void seen.push(s);
  const deps = client.objects(resources.deployments, ns);
  const rss = client.objects(resources.replicaSets, ns);
  const pods = client.objects(resources.pods, ns);
  const active = async () => (await pods.list()).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
  const complete = async (name: string, want: number): Promise<string[]> => {
    const d = await deps.get(name);
    const s = d.status ?? {};
    const done = (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) && s.updatedReplicas === want && s.replicas === want && s.availableReplicas === want;
    const ready = (await active()).filter((p) => p.metadata?.labels?.['app'] === name && isReady(p)).length;
    return done && ready === want ? [] : [`${name}: ${JSON.stringify(s)}, ${ready} ready`];
  };
  const gone = async (f: () => Promise<unknown>): Promise<boolean> => (await failure(f())).startsWith('404');

  await client.objects(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // A Deployment rolls out: ReplicaSet, 3 pods bound, Running and Ready.
  await deps.create(deployment('web', 3, 'nginx:1.19'));
  await convergeWithin(60_000, () => complete('web', 3));
  const d1 = await deps.get('web');
  note(`web: replicasets=${(await rss.list()).items.length} conditions=${(d1.status?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`).sort().join(',')}`);
  note(`web pods on nodes: ${(await active()).every((p) => (p.spec?.nodeName ?? '') !== '')}`);

  // /scale: read, then scale to 5 with a merge patch (what kubectl scale sends).
  const scalePath = `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`;
  const scale = await client.connection.request<Scale>({ path: scalePath });
  note(`scale: ${scale.kind} ${scale.apiVersion} replicas=${scale.spec.replicas} selector=${scale.status.selector ?? ''}`);
  await client.connection.request({ method: 'PATCH', path: scalePath, body: { spec: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
  await convergeWithin(60_000, () => complete('web', 5));
  note('scaled to 5');

  // A Service: the endpoints controller lists the 5 Ready pods with the target port.
  await client.objects(resources.services, ns).create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
  const endpoints = client.objects(resources.endpoints, ns);
  await convergeWithin(60_000, async () => {
    const ep = await endpoints.get('web').catch(() => undefined);
    return (ep?.subsets?.[0]?.addresses ?? []).length === 5 ? [] : [`endpoints ${JSON.stringify(ep?.subsets ?? [])}`];
  });
  const ep = await endpoints.get('web');
  note(`endpoints: subsets=${ep.subsets?.length} addresses=${ep.subsets?.[0]?.addresses?.length} ports=${JSON.stringify(ep.subsets?.[0]?.ports)}`);

  // A new image: a second ReplicaSet takes over, the first is scaled to 0.
  await deps.patch('web', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.20' }] } } } }, 'strategic');
  await convergeWithin(60_000, async () => {
    const problems = await complete('web', 5);
    const counts = (await rss.list()).items.map((rs) => rs.spec?.replicas ?? 0).sort();
    return problems.length === 0 && JSON.stringify(counts) === '[0,5]' && (await pods.list()).items.length === 5 ? [] : [...problems, `replicasets ${JSON.stringify(counts)}`];
  });
  note(`rolled out: revision=${(await deps.get('web')).metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? ''}`);

  // A bound pod is deleted gracefully; the stand-in kubelet confirms; the ReplicaSet replaces it.
  const [victim] = await active();
  const deleted = (await pods.delete(victim?.metadata?.name ?? '')) as K8s.Pod;
  note(`pod delete: kind=${deleted.kind} grace=${deleted.metadata?.deletionGracePeriodSeconds} deletionTimestamp=${deleted.metadata?.deletionTimestamp !== undefined}`);
  await convergeWithin(60_000, async () => ((await gone(() => pods.get(victim?.metadata?.name ?? ''))) ? complete('web', 5) : ['victim still there']));
  note('deleted pod replaced');

  // A pod never scheduled goes at once.
  await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unscheduled' }, spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'nginx' }] } });
  await pods.delete('unscheduled');
  note(`unscheduled pod gone at once: ${await gone(() => pods.get('unscheduled'))}`);

  // Background deletion: the ReplicaSets and pods follow.
  await deps.delete('web');
  await convergeWithin(60_000, async () => ((await rss.list()).items.length + (await pods.list()).items.length === 0 ? [] : ['web leftovers']));
  note('background: replicasets and pods gone');

  // Foreground deletion: the Deployment waits (foregroundDeletion) until its dependents are gone.
  await deps.create(deployment('fg', 2, 'nginx:1.19'));
  await convergeWithin(60_000, () => complete('fg', 2));
  await deps.delete('fg', { propagationPolicy: 'Foreground' });
  const fg = await deps.get('fg').catch(() => undefined);
  note(`foreground: finalizers=${(fg?.metadata?.finalizers ?? ['(already gone)']).join(',')}`);
  await convergeWithin(60_000, async () => ((await gone(() => deps.get('fg'))) && (await rss.list()).items.length + (await pods.list()).items.length === 0 ? [] : ['fg leftovers']));
  note('foreground: all gone');

  // Orphan deletion: the ReplicaSet stays, without its owner reference, with its pod.
  await deps.create(deployment('orph', 1, 'nginx:1.19'));
  await convergeWithin(60_000, () => complete('orph', 1));
  await deps.delete('orph', { propagationPolicy: 'Orphan' });
  await convergeWithin(60_000, async () => ((await gone(() => deps.get('orph'))) ? [] : ['orph still there']));
  const orphans = (await rss.list()).items;
  note(`orphan: replicasets=${orphans.length} ownerReferences=${orphans.map((rs) => (rs.metadata?.ownerReferences ?? []).length).join(',')} pods=${(await active()).length}`);

  // Namespace deletion: Terminating, creates refused, the content deleted, then the namespace.
  await client.objects(resources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  const terminating = (await client.objects(resources.namespaces).delete(ns)) as K8s.Namespace;
  note(`namespace delete: phase=${terminating.status?.phase ?? ''} finalizers=${(terminating.spec?.finalizers ?? []).join(',')}`);
  note(`create in terminating namespace: ${await failure(client.objects(resources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }))}`);
  note(`delete terminating namespace again: ${await failure(client.objects(resources.namespaces).delete(ns))}`);
  await convergeWithin(90_000, async () => ((await gone(() => client.objects(resources.namespaces).get(ns))) ? [] : ['namespace still there']));
  note('namespace gone');
  return seen;
}

async function withControllerManager(client: KubeClient, nodes: readonly string[], f: () => Promise<string[]>): Promise<string[]> {
  const cm: RunningControllerManager = await startControllerManager({ client, standInNodes: nodes, podStartupMs: 100 });
  try {
    expect(await cm.synced).toBe(true);
    return await f();
  } finally {
    await cm.stop();
  }
}

describe('lifecycle: rxkube-controller-manager on the embedded server and on kube-apiserver 1.20', () => {
  let server: ApiServer | undefined;
  const clients: KubeClient[] = [];
  let embedded: string[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.close();
  });

  it('runs the scenario on the embedded server', async () => {
    server = await startApiServer({ kubernetesVersion: '1.20' }); // compared with a real 1.20
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    clients.push(client);
    embedded = await withControllerManager(client, ['lc-node-1', 'lc-node-2'], () => scenario(client, 'lifecycle'));
    expect(embedded).toContain('namespace gone');
  });

  it.skipIf(!hasCluster)('kube-apiserver 1.20 with rxkube-controller-manager gives the same outcomes', async () => {
    const client = KubeClient.fromDefault();
    clients.push(client);
    const ns = `lifecycle-${randomBytes(3).toString('hex')}`;
    const real = await withControllerManager(client, ['lc-node-1', 'lc-node-2'], () => scenario(client, ns));
    expect(embedded).toEqual(real);
  });
});
