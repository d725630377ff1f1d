/**
 * The few fields of Pods and ReplicaSets this controller reads, and small predicates over them
 * (the same rules as kube-controller-manager's `controller.IsPodActive`, `podutil.IsPodReady`,
 * `podutil.IsPodAvailable`).
 */
import type { KubeObject, ObjectMeta, OwnerReference, Resource, StructuredLabelSelector } from '../../../index.js';

export const PODS: Resource = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
export const REPLICA_SETS: Resource = { apiVersion: 'apps/v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true };

export interface PodCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly lastTransitionTime?: string;
}

export interface Pod extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: { readonly nodeName?: string; readonly containers?: readonly unknown[]; readonly [k: string]: unknown };
  readonly status?: {
    readonly phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
    readonly conditions?: readonly PodCondition[];
    readonly [k: string]: unknown;
  };
}

export interface ReplicaSetStatus {
  readonly replicas: number;
  readonly fullyLabeledReplicas?: number;
  readonly readyReplicas?: number;
  readonly availableReplicas?: number;
  readonly observedGeneration?: number;
}

export interface ReplicaSet extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly replicas?: number;
    readonly minReadySeconds?: number;
    readonly selector?: StructuredLabelSelector;
    readonly template?: { readonly metadata?: ObjectMeta; readonly spec?: Pod['spec'] };
  };
  readonly status?: ReplicaSetStatus;
}

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
