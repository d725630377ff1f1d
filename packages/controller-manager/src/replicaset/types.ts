/**
 * The few fields of Pods and ReplicaSets this controller reads, and small predicates over them
 * (the same rules as kube-controller-manager's `controller.IsPodActive`, `podutil.IsPodReady`,
 * `podutil.IsPodAvailable`).
 */
import { resources, type K8s, type KubeObject, type OwnerReference } from 'rxkube';

/** The objects are `kubernetes-types`' wire shapes, as rxkube caches them. */
export type Pod = K8s.Pod;
export type ReplicaSet = K8s.ReplicaSet;
export type PodCondition = NonNullable<NonNullable<Pod['status']>['conditions']>[number];
export type ReplicaSetStatus = NonNullable<ReplicaSet['status']>;

export const PODS = resources.pods;
export const REPLICA_SETS = resources.replicaSets;

/** `namespace/name` of an object. */
export const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** The owner reference with `controller: true`, if any. */
export function controllerRef(o: KubeObject): OwnerReference | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** Counts toward replicas: not terminating and not finished (Succeeded or Failed). */
export function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** The pod's Ready condition is True. */
export function isReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** Ready for at least `minReadySeconds` at `nowMs`. */
export function isAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime === undefined ? Number.NaN : Date.parse(ready.lastTransitionTime);
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= nowMs;
}
