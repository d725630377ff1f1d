/**
 * The dashboard's two live views, without the DOM: pods per node from two informers' `state$`
 * (immutable cache snapshots), and rollout progress per Deployment from `joinOn` Deployments ⋈
 * ReplicaSets with keyed operators. The same pipelines as `examples/pods-per-node.ts` and
 * `examples/rollout-progress.ts`, on the browser entry.
 */
import { auditTime, combineLatest, map, type Observable } from 'rxjs';
import { collectByKey, distinctByKey, mapByKey } from 'rxkube/operators';
import { progressOf, sameProgress, type RolloutCount } from '../../rollout-progress-core.js';
import { joinOn, type K8s, type KubeObject, type ObjectKey, type SharedInformer } from 'rxkube/browser';

export const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
export type Phase = (typeof PHASES)[number];

/** One node's row: pod counts by phase, and the pods' `namespace/name`s, sorted. */
export interface NodeRow {
  readonly node: string;
  readonly counts: Readonly<Record<Phase, number>>;
  readonly pods: readonly string[];
}

/** Pods on no node, or on a node that is gone. */
export const NO_NODE = '(no node)';

/** The rows, nodes sorted by name, `(no node)` last when any pod has none. */
export function nodeRows(nodes: readonly K8s.Node[], pods: readonly K8s.Pod[]): NodeRow[] {
  const byNode = new Map<string, K8s.Pod[]>(nodes.map((n) => [n.metadata?.name ?? '', []]));
  const homeless: K8s.Pod[] = [];
  for (const p of pods) (byNode.get(p.spec?.nodeName || NO_NODE) ?? homeless).push(p);
  const rows = [...byNode].sort(([a], [b]) => a.localeCompare(b)).map(([node, ps]) => rowOf(node, ps));
  if (homeless.length > 0) rows.push(rowOf(NO_NODE, homeless));
  return rows;
}

function rowOf(node: string, pods: readonly K8s.Pod[]): NodeRow {
  const counts: Record<Phase, number> = { Pending: 0, Running: 0, Succeeded: 0, Failed: 0, Unknown: 0 };
  for (const p of pods) {
    const phase = (PHASES as readonly string[]).includes(p.status?.phase ?? '') ? (p.status?.phase as Phase) : 'Pending';
    counts[phase] += 1;
  }
  const names = pods.map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`).sort();
  return { node, counts, pods: names };
}

/**
 * Pods per node, live: a new set of rows after each batch of changes of either informer
 * (`settleMs` groups bursts); nothing before both informers have their initial lists.
 */
export function podsPerNode(nodes: SharedInformer<K8s.Node>, pods: SharedInformer<K8s.Pod>, settleMs = 50): Observable<NodeRow[]> {
  return combineLatest([nodes.state$, pods.state$]).pipe(
    auditTime(settleMs),
    map(([nodeMap, podMap]) => nodeRows([...nodeMap.values()], [...podMap.values()])),
  );
}

/** What the view reads of a Deployment or ReplicaSet. */
export type Workload = KubeObject & {
  spec?: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number };
};

export { REVISION } from '../../rollout-progress-core.js';

/** Where one Deployment's rollout stands. */
export type Progress = RolloutCount;

const uidIndex = (o: KubeObject): string[] => (o.metadata?.uid ? [o.metadata.uid] : []);
const ownerUidIndex = (o: KubeObject): string[] => (o.metadata?.ownerReferences ?? []).map((r) => r.uid).filter((u) => u !== '');

/**
 * Rollout progress of every Deployment, live (keyed `namespace/name`; a deleted Deployment leaves
 * the table): `joinOn` gives each Deployment with the ReplicaSets it owns once both lists are in,
 * then after every change of either; `distinctByKey` drops what did not change the progress.
 */
export function rollouts<D extends Workload, S extends Workload>(
  deployments: SharedInformer<D>,
  replicaSets: SharedInformer<S>,
): Observable<ReadonlyMap<ObjectKey, Progress>> {
  const byUid = deployments.withIndex('uid', uidIndex).by('uid');
  const byOwner = replicaSets.withIndex('owner', ownerUidIndex).by('owner');
  return joinOn(byUid, byOwner).pipe(
    mapByKey(({ left, right }) => progressOf(left, right)),
    distinctByKey(sameProgress),
    collectByKey(),
  );
}
