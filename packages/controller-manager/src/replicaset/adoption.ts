/**
 * Claiming pods (kube-controller-manager's `PodControllerRefManager.ClaimPods`): a ReplicaSet owns
 * the pods whose controller reference names it; it adopts orphans its selector matches and
 * releases owned pods its selector no longer matches. Pods controlled by someone else are never
 * touched. Before the first adoption the ReplicaSet is read fresh from the API server: a cached
 * copy could be a deleted-and-recreated namesake (another uid) or already being deleted.
 *
 * Adoption and release are draft edits (`ObjectClient.edit`): the recipe changes the cached pod's
 * `ownerReferences` as if it were mutable, and only that change is sent, guarded by the pod's
 * resourceVersion. When the pod changed meanwhile (the kubelet writes its status often), the
 * recipe runs again on the new copy, so it re-checks what kube-controller-manager's patch
 * preconditions check: the same pod (uid), still an orphan that matches (adopt), still ours (release).
 */
import { isNotFound, type ObjectClient, type OwnerReference, type Recipe } from 'rxkube';
import { type SelectorMatcher } from 'rxkube/api';
import { controllerRef, REPLICA_SETS, type Pod, type ReplicaSet } from './types.js';

/** The result of a claim: the pods the ReplicaSet now controls, and what changed. */
export interface Claim {
  readonly owned: Pod[];
  readonly adopted: string[];
  readonly released: string[];
}

export interface ClaimOptions {
  readonly matches: SelectorMatcher;
  readonly pods: ObjectClient<Pod>;
  readonly replicaSets: ObjectClient<ReplicaSet>;
  readonly signal?: AbortSignal;
}

/** Adopts, releases and keeps pods of `candidates` (every pod in the ReplicaSet's namespace). */
export async function claimPods(rs: ReplicaSet, candidates: readonly Pod[], options: ClaimOptions): Promise<Claim> {
  const uid = rs.metadata?.uid ?? '';
  const deleting = rs.metadata?.deletionTimestamp !== undefined;
  const call = options.signal === undefined ? {} : { signal: options.signal };
  const owned: Pod[] = [];
  const adopted: string[] = [];
  const released: string[] = [];
  let canAdopt: Promise<void> | undefined;

  for (const pod of candidates) {
    const name = pod.metadata?.name ?? '';
    const ref = controllerRef(pod);
    const matches = options.matches(pod.metadata?.labels);
    if (ref !== undefined) {
      if (ref.uid !== uid) continue; // someone else's
      if (matches || deleting) {
        owned.push(pod);
        continue;
      }
      try {
        const updated = await options.pods.edit(pod, release(pod, uid), call);
        if (updated.metadata?.uid === pod.metadata?.uid && controllerRef(updated)?.uid !== uid) released.push(name);
      } catch (err) {
        if (!isNotFound(err)) throw err; // gone: nothing to release
      }
      continue;
    }
    if (!matches || deleting || pod.metadata?.deletionTimestamp !== undefined) continue;
    canAdopt ??= recheck(rs, options.replicaSets, call);
    await canAdopt;
    const ownerRef = { apiVersion: REPLICA_SETS.apiVersion, kind: REPLICA_SETS.kind, name: rs.metadata?.name ?? '', uid, controller: true, blockOwnerDeletion: true };
    try {
      const updated = await options.pods.edit(pod, adopt(pod, ownerRef, options.matches), call);
      if (controllerRef(updated)?.uid === uid) {
        owned.push(updated);
        adopted.push(name);
      }
    } catch (err) {
      if (!isNotFound(err)) throw err; // gone: nothing to adopt
    }
  }
  return { owned, adopted, released };
}

/** Fails unless the ReplicaSet still exists with the same uid and is not being deleted. */
async function recheck(rs: ReplicaSet, replicaSets: ObjectClient<ReplicaSet>, call: { signal?: AbortSignal }): Promise<void> {
  const fresh = await replicaSets.get(rs.metadata?.name ?? '', call);
  if (fresh.metadata?.uid !== rs.metadata?.uid) throw new Error(`original ReplicaSet ${rs.metadata?.name} is gone: got uid ${fresh.metadata?.uid}`);
  if (fresh.metadata?.deletionTimestamp !== undefined) throw new Error(`ReplicaSet ${rs.metadata?.name} is being deleted`);
}

/** Adds `ownerRef` to the same pod while it is a live orphan the selector matches. */
function adopt(pod: Pod, ownerRef: OwnerReference, matches: SelectorMatcher): Recipe<Pod> {
  return (draft) => {
    const meta = draft.metadata;
    if (meta === undefined || meta.uid !== pod.metadata?.uid || meta.deletionTimestamp !== undefined) return;
    if (controllerRef(draft) !== undefined || !matches(meta.labels)) return;
    (meta.ownerReferences ??= []).push(ownerRef);
  };
}

/** Removes the owner reference with `uid` from the same pod. */
function release(pod: Pod, uid: string): Recipe<Pod> {
  return (draft) => {
    const refs = draft.metadata?.uid === pod.metadata?.uid ? draft.metadata?.ownerReferences : undefined;
    const i = refs?.findIndex((r) => r.uid === uid) ?? -1;
    if (i >= 0) refs?.splice(i, 1);
  };
}
