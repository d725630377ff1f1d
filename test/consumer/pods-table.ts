/**
 * A live table of pods per node and phase, from two informers' `state$` (immutable cache
 * snapshots): a new table after each batch of changes. No casts, no `!`, no `any`.
 */
import { auditTime, combineLatest, map, type Observable, type SchedulerLike, asyncScheduler } from 'rxjs';
import type { K8s, SharedInformer } from 'rxkube';

export const NO_NODE = '(no node)';
/** Pod counts by phase, per node name. */
export type PodTable = ReadonlyMap<string, ReadonlyMap<string, number>>;

export function podsPerNode(nodes: SharedInformer<K8s.Node>, pods: SharedInformer<K8s.Pod>, settleMs = 20, scheduler: SchedulerLike = asyncScheduler): Observable<PodTable> {
  return combineLatest([nodes.state$, pods.state$]).pipe(
    auditTime(settleMs, scheduler),
    map(([nodeMap, podMap]) => tableOf([...nodeMap.values()], [...podMap.values()])),
  );
}

export function tableOf(nodes: readonly K8s.Node[], pods: readonly K8s.Pod[]): PodTable {
  const table = new Map<string, Map<string, number>>();
  for (const node of nodes) table.set(node.metadata?.name ?? '', new Map());
  for (const pod of pods) {
    const nodeName = pod.spec?.nodeName;
    const row = (nodeName === undefined ? undefined : table.get(nodeName)) ?? rowOf(table, NO_NODE);
    const phase = pod.status?.phase ?? 'Pending';
    row.set(phase, (row.get(phase) ?? 0) + 1);
  }
  return table;
}

function rowOf(table: Map<string, Map<string, number>>, name: string): Map<string, number> {
  const found = table.get(name);
  if (found !== undefined) return found;
  const row = new Map<string, number>();
  table.set(name, row);
  return row;
}

/** The table as text, one line per node sorted by name: `node-a Pending=1 Running=2`. */
export function renderTable(table: PodTable): string {
  return [...table.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([node, phases]) => [node, ...[...phases.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([phase, n]) => `${phase}=${n}`)].join(' '))
    .join('\n');
}
