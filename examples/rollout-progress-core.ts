/**
 * Where a Deployment's rollout stands, as a pure function of the Deployment and the ReplicaSets
 * it owns. Shared by `examples/rollout-progress.ts` (Node.js) and the live dashboard's page (a
 * browser), so it imports nothing: it reads only the fields named below.
 */

/** The revision annotation the Deployment controller keeps on a Deployment and its ReplicaSets. */
export const REVISION = 'deployment.kubernetes.io/revision';

/** What the progress reads of a Deployment or ReplicaSet. */
export interface RolloutWorkload {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: { readonly replicas?: number };
  readonly status?: { readonly replicas?: number; readonly readyReplicas?: number };
}

/** Where one Deployment's rollout stands, as counted from its ReplicaSets. */
export interface RolloutCount {
  readonly revision: string;
  readonly desired: number;
  /** Replicas of the current revision's ReplicaSets, and how many of them are ready. */
  readonly updated: number;
  readonly ready: number;
  /** Replicas still run by older ReplicaSets. */
  readonly old: number;
  readonly phase: 'progressing' | 'complete';
}

const revisionOf = (o: RolloutWorkload): string => o.metadata?.annotations?.[REVISION] ?? '';

/** The progress of `deployment`, from the ReplicaSets it owns. */
export function progressOf(deployment: RolloutWorkload, replicaSets: readonly RolloutWorkload[]): RolloutCount {
  const revision = revisionOf(deployment);
  const desired = deployment.spec?.replicas ?? 1;
  let updated = 0;
  let ready = 0;
  let old = 0;
  for (const rs of replicaSets) {
    if (revisionOf(rs) === revision) {
      updated += rs.status?.replicas ?? 0;
      ready += rs.status?.readyReplicas ?? 0;
    } else old += rs.status?.replicas ?? 0;
  }
  const phase = updated === desired && ready === desired && old === 0 ? 'complete' : 'progressing';
  return { revision, desired, updated, ready, old, phase };
}

/** Whether two progress records say the same (the phase may be wider than {@link RolloutCount}'s). */
export const sameProgress = <P extends Omit<RolloutCount, 'phase'> & { readonly phase: string }>(a: P, b: P): boolean =>
  a.revision === b.revision && a.desired === b.desired && a.updated === b.updated && a.ready === b.ready && a.old === b.old && a.phase === b.phase;
