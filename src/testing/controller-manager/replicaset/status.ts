/**
 * The ReplicaSet's status (kube-controller-manager's `calculateStatus` and
 * `updateReplicaSetStatus`): counts of its active pods, written through the `/status`
 * subresource only when something changed, with the generation it was computed for.
 */
import type { ObjectClient } from '../../../index.js';
import { isAvailable, isReady, type Pod, type ReplicaSet, type ReplicaSetStatus } from './types.js';

/** The status `rs` should report for its active pods at `nowMs`. */
export function calculateStatus(rs: ReplicaSet, active: readonly Pod[], nowMs: number): ReplicaSetStatus {
  const minReady = rs.spec?.minReadySeconds ?? 0;
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const fullyLabeled = (p: Pod): boolean => Object.entries(templateLabels).every(([k, v]) => p.metadata?.labels?.[k] === v);
  return {
    replicas: active.length,
    fullyLabeledReplicas: active.filter(fullyLabeled).length,
    readyReplicas: active.filter(isReady).length,
    availableReplicas: active.filter((p) => isAvailable(p, minReady, nowMs)).length,
    observedGeneration: rs.metadata?.generation ?? 0,
  };
}

function sameStatus(a: ReplicaSetStatus | undefined, b: ReplicaSetStatus): boolean {
  return (
    a !== undefined &&
    a.replicas === b.replicas &&
    (a.fullyLabeledReplicas ?? 0) === b.fullyLabeledReplicas &&
    (a.readyReplicas ?? 0) === b.readyReplicas &&
    (a.availableReplicas ?? 0) === b.availableReplicas &&
    (a.observedGeneration ?? 0) === b.observedGeneration
  );
}

/** Writes `status` unless `rs` already carries it; returns whether it wrote. */
export async function updateStatus(
  rs: ReplicaSet,
  status: ReplicaSetStatus,
  replicaSets: ObjectClient<ReplicaSet>,
  signal?: AbortSignal,
): Promise<boolean> {
  if (sameStatus(rs.status, status)) return false;
  await replicaSets.patchStatus(rs.metadata?.name ?? '', { status }, 'merge', signal === undefined ? {} : { signal });
  return true;
}

