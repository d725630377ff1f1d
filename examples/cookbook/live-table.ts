// A live table of running pods per namespace, recomputed from two informers' cache snapshots
// (`state$`) after each burst of changes; namespaces without pods show as 0.
import { asyncScheduler, auditTime, combineLatest, distinctUntilChanged, map, type Observable, type SchedulerLike } from 'rxjs';
import type { K8s, SharedInformer } from 'rxkube';

export function runningPodsPerNamespace(
  namespaces: SharedInformer<K8s.Namespace>,
  pods: SharedInformer<K8s.Pod>,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<string> {
  return combineLatest([namespaces.state$, pods.state$]).pipe( // first once both caches synced
    auditTime(100, scheduler), // one table per burst
    map(([namespaceMap, podMap]) => {
      const rows = new Map([...namespaceMap.values()].map((ns) => [ns.metadata.name, { running: 0, all: 0 }]));
      for (const pod of podMap.values()) {
        const row = rows.get(pod.metadata?.namespace ?? '');
        if (row === undefined) continue; // its namespace is not in the other snapshot (yet)
        row.all++;
        if (pod.status?.phase === 'Running') row.running++;
      }
      return [...rows].sort(([a], [b]) => a.localeCompare(b)).map(([ns, r]) => `${ns} ${r.running}/${r.all}`).join('\n');
    }),
    distinctUntilChanged(), // a burst that changed nothing shown prints nothing
  );
}
