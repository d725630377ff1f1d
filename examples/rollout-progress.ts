/**
 * Rollout progress, live: Deployments ⋈ ReplicaSets through their declared indexes, turned into
 * one progress record per Deployment with keyed operators — no hand-kept Map, no groupBy.
 *
 *   npx tsx --conditions=source examples/rollout-progress.ts                 # embedded API server + a scenario
 *   npx tsx --conditions=source examples/rollout-progress.ts --kubeconfig ~/.kube/config   # a real cluster, until Ctrl-C
 *
 * The pipeline: `joinOn` waits for both informers' initial lists and then emits, for every change,
 * the Deployment with all the ReplicaSets it owns; `mapByKey` computes its progress, `distinctByKey`
 * drops unchanged progress, `switchMapByKey` starts a per-Deployment deadline that turns a rollout
 * that stops moving into `stalled` (any change, or the Deployment's deletion, cancels it), and
 * `collectByKey` keeps the table. A deleted Deployment is forgotten by every step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { asyncScheduler, concat, map, type Observable, of, type SchedulerLike, timer } from 'rxjs';
import { InformerFactory, joinOn, KubeClient, setupSignalHandler, type K8s, type KubeObject, type ObjectKey, type SharedInformer } from 'rxkube';
import { ownerUidIndex, uidIndex } from 'rxkube/controller';
import { collectByKey, distinctByKey, type KeyedChange, mapByKey, switchMapByKey } from 'rxkube/operators';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { progressOf, REVISION, sameProgress, type RolloutCount } from './rollout-progress-core.js';

/** What the table reads of a workload's spec (the scenario writes valid objects: selector and pod template). */
interface WorkloadSpec {
  readonly replicas?: number;
  readonly selector?: K8s.LabelSelector;
  readonly template?: K8s.PodTemplateSpec;
}
export type Deployment = KubeObject & { spec?: WorkloadSpec };
export type ReplicaSet = KubeObject & { spec?: WorkloadSpec; status?: { replicas?: number; readyReplicas?: number } };

export { REVISION, progressOf } from './rollout-progress-core.js';

/** Where one Deployment's rollout stands; `stalled` once it has not moved for the deadline. */
export type Progress = Omit<RolloutCount, 'phase'> & { readonly phase: RolloutCount['phase'] | 'stalled' };

/** Options of {@link rolloutProgress}. */
export interface RolloutProgressOptions {
  /** How long a rollout may stand still before it is `stalled` (ms). Default 600 000 (Kubernetes' default progress deadline). */
  readonly deadlineMs?: number;
  readonly scheduler?: SchedulerLike;
}

/** One progress change per Deployment (keyed by `namespace/name`), and its deletion. */
export function rolloutProgress(
  deployments: SharedInformer<Deployment>,
  replicaSets: SharedInformer<ReplicaSet>,
  options: RolloutProgressOptions = {},
): Observable<KeyedChange<Progress>> {
  const deadlineMs = options.deadlineMs ?? 600_000;
  const scheduler = options.scheduler ?? asyncScheduler;
  const byUid = deployments.withIndex('uid', uidIndex).by('uid');
  const byOwner = replicaSets.withIndex('owner', ownerUidIndex).by('owner');
  return joinOn(byUid, byOwner).pipe(
    mapByKey(({ left, right }) => progressOf(left, right)),
    distinctByKey(sameProgress),
    switchMapByKey((p) =>
      p.phase === 'complete' ? of(p) : concat(of(p), timer(deadlineMs, scheduler).pipe(map((): Progress => ({ ...p, phase: 'stalled' })))),
    ),
  );
}

/** The whole table of rollouts, a new immutable map after each change. */
export function rolloutTable(
  deployments: SharedInformer<Deployment>,
  replicaSets: SharedInformer<ReplicaSet>,
  options: RolloutProgressOptions = {},
): Observable<ReadonlyMap<ObjectKey, Progress>> {
  return rolloutProgress(deployments, replicaSets, options).pipe(collectByKey());
}

/** The table as text, Deployments sorted by key. */
export function renderRollouts(table: ReadonlyMap<ObjectKey, Progress>): string {
  const header = ['DEPLOYMENT', 'REVISION', 'UPDATED', 'READY', 'OLD', 'PHASE'];
  const rows = [...table.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, p]) => [key, p.revision, `${p.updated}/${p.desired}`, `${p.ready}/${p.desired}`, String(p.old), p.phase]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** A rollout from revision 1 to 2 of `web`, and an `api` Deployment whose ReplicaSet never gets ready. */
export async function scenario(client: KubeClient, say: (line: string) => void, settled: () => Promise<void>): Promise<void> {
  const deployments = client.objects<Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default');
  const replicaSets = client.objects<ReplicaSet>({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, 'default');
  // A selector and a pod template whose labels it matches, as the API server requires.
  const podsOf = (labels: Record<string, string>, image: string): WorkloadSpec => ({
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { containers: [{ name: 'main', image }] } },
  });
  const deploy = (name: string, revision: string, replicas: number): Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations: { [REVISION]: revision } },
    spec: { replicas, ...podsOf({ app: name }, `${name}:${revision}`) },
  });
  const replicaSet = async (owner: Deployment, revision: string, replicas: number): Promise<void> => {
    const name = `${owner.metadata?.name}-${revision}`;
    await replicaSets.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        annotations: { [REVISION]: revision },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true }],
      },
      spec: { replicas, ...podsOf({ app: owner.metadata?.name ?? '', 'pod-template-hash': revision }, `${owner.metadata?.name ?? ''}:${revision}`) },
    });
  };
  const scale = (name: string, replicas: number, readyReplicas: number) =>
    replicaSets.patchStatus(name, { status: { replicas, readyReplicas } });

  say('── web at revision 1, three replicas ready');
  const web = await deployments.create(deploy('web', '1', 3));
  await replicaSet(web, '1', 3);
  await scale('web-1', 3, 3);
  await settled();
  say('── web rolls out revision 2: the new ReplicaSet comes up as the old one goes down');
  await deployments.patch('web', { metadata: { annotations: { [REVISION]: '2' } } });
  await replicaSet(web, '2', 1);
  await scale('web-2', 1, 0);
  await settled();
  await scale('web-2', 2, 1);
  await scale('web-1', 1, 1);
  await settled();
  await scale('web-2', 3, 3);
  await scale('web-1', 0, 0);
  await settled();
  say('── api at revision 1: its ReplicaSet never gets a ready replica');
  const api = await deployments.create(deploy('api', '1', 2));
  await replicaSet(api, '1', 2);
  await scale('api-1', 2, 0);
  await settled();
}

/** The table computed from fresh lists (no cache), to compare with the live one (phases other than stalled). */
export async function serverTable(client: KubeClient): Promise<ReadonlyMap<ObjectKey, Progress>> {
  const deployments = (await client.objects<Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }).list()).items;
  const replicaSets = (await client.objects<ReplicaSet>({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }).list()).items;
  return new Map(
    deployments.map((d) => [
      `${d.metadata?.namespace}/${d.metadata?.name}`,
      progressOf(d, replicaSets.filter((rs) => (rs.metadata?.ownerReferences ?? []).some((r) => r.uid === d.metadata?.uid))),
    ]),
  );
}

/** Runs the live table on `client` until `signal` aborts; without a client, against the embedded API server with the scenario. */
export async function runRolloutProgress(options: {
  client?: KubeClient;
  write?: (line: string) => void;
  signal?: AbortSignal;
  deadlineMs?: number;
}): Promise<ReadonlyMap<ObjectKey, Progress>> {
  const write = options.write ?? ((line: string) => console.log(line));
  const server = options.client === undefined ? await startApiServer() : undefined;
  const client = options.client ?? KubeClient.fromKubeConfig((server as ApiServer).kubeConfig);
  const informers = new InformerFactory(client, { namespace: 'default' });
  let last: ReadonlyMap<ObjectKey, Progress> = new Map();
  const sub = rolloutTable(informers.deployments(), informers.replicaSets(), {
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
  }).subscribe((table) => {
    last = table;
    write(`${renderRollouts(table)}\n`);
  });
  try {
    if (server !== undefined) {
      // Between steps, wait until the live table shows what the API server holds.
      const settled = async (): Promise<void> => {
        const want = renderRollouts(await serverTable(client));
        const live = () => renderRollouts(new Map([...last].map(([k, p]) => [k, p.phase === 'stalled' ? { ...p, phase: 'progressing' as const } : p])));
        for (let i = 0; live() !== want; i++) {
          if (i > 400) throw new Error(`the table did not catch up with the API server:\n${want}`);
          await sleep(25);
        }
      };
      await scenario(client, write, settled);
      if (options.deadlineMs !== undefined) await sleep(options.deadlineMs + 100); // let api stall
    } else if (options.signal !== undefined && !options.signal.aborted) {
      const signal = options.signal;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    }
    return last;
  } finally {
    sub.unsubscribe();
    if (server !== undefined) {
      client.close();
      await server.close();
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
  const useCluster = values.kubeconfig !== undefined || (process.env['KUBECONFIG'] ?? '') !== '';
  const client = !useCluster ? undefined : values.kubeconfig === undefined ? KubeClient.fromDefault() : KubeClient.fromFile(values.kubeconfig);
  const signals = setupSignalHandler();
  await runRolloutProgress({ ...(client === undefined ? {} : { client }), signal: signals.signal, deadlineMs: client === undefined ? 2_000 : undefined });
  signals.dispose();
  client?.close();
}
