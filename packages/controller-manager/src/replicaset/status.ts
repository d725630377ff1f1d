/**
 * The ReplicaSet's status (kube-controller-manager's `calculateStatus` and
 * `updateReplicaSetStatus`): counts of its active pods, written through the `/status`
 * subresource only when something changed, with the generation it was computed for. The write is
 * a draft edit (`ctx.editStatus`): only the fields that differ are sent, and on a conflict the
 * same status is set on the newer copy (kube-controller-manager's retry does the same).
 */
import type { Recipe } from 'rxkube';
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

/** Writes `status` with `editStatus` unless `rs` already carries it; returns whether it wrote. */
export async function updateStatus(
  rs: ReplicaSet,
  status: ReplicaSetStatus,
  editStatus: (recipe: Recipe<ReplicaSet>) => Promise<ReplicaSet>,
): Promise<boolean> {
  if (sameStatus(rs.status, status)) return false;
  await editStatus((draft) => {
    draft.status = status;
  });
  return true;
}
