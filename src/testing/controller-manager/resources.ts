/**
 * Resource types, object shapes and cluster discovery shared by the controllers of
 * rxkube-controller-manager. Everything here uses rxkube's public API only.
 */
import type { KubeClient, KubeObject, ObjectMeta, OwnerReference, Resource, StructuredLabelSelector } from '../../index.js';

export const NAMESPACES: Resource = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
export const NODES: Resource = { apiVersion: 'v1', kind: 'Node', plural: 'nodes', namespaced: false };
export const PODS: Resource = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
export const REPLICA_SETS: Resource = { apiVersion: 'apps/v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true };
export const DEPLOYMENTS: Resource = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true };
export const SERVICES: Resource = { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true };
export const ENDPOINTS: Resource = { apiVersion: 'v1', kind: 'Endpoints', plural: 'endpoints', namespaced: true };

/** A Deployment, as far as the Deployment controller reads it. */
export interface Deployment extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly replicas?: number;
    readonly selector?: StructuredLabelSelector;
    readonly template?: { readonly metadata?: ObjectMeta; readonly spec?: Readonly<Record<string, unknown>> };
    readonly strategy?: {
      readonly type?: 'RollingUpdate' | 'Recreate';
      readonly rollingUpdate?: { readonly maxSurge?: number | string; readonly maxUnavailable?: number | string };
    };
    readonly minReadySeconds?: number;
    readonly revisionHistoryLimit?: number;
    readonly paused?: boolean;
  };
  readonly status?: DeploymentStatus;
}

export interface DeploymentCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
  readonly lastUpdateTime?: string;
  readonly lastTransitionTime?: string;
}

export interface DeploymentStatus {
  readonly observedGeneration?: number;
  readonly replicas?: number;
  readonly updatedReplicas?: number;
  readonly readyReplicas?: number;
  readonly availableReplicas?: number;
  readonly unavailableReplicas?: number;
  readonly conditions?: readonly DeploymentCondition[];
}

/** The owner reference with `controller: true`, if any. */
export function controllerOf(o: KubeObject): OwnerReference | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** `YYYY-MM-DDTHH:MM:SSZ` of `ms` (kube's second-precision timestamps). */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

interface ApiResourceEntry {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs?: readonly string[];
}

/**
 * Every resource the server serves (preferred version of each group) that can be listed, watched
 * and deleted: what the garbage collector and the namespace controller act on.
 */
export async function discoverResources(client: KubeClient, signal?: AbortSignal): Promise<Resource[]> {
  const request = <T>(path: string): Promise<T> => client.connection.request<T>({ path }, signal);
  const groups = await request<{ groups?: readonly { name: string; preferredVersion?: { groupVersion: string } }[] }>('/apis');
  const groupVersions = ['v1', ...(groups.groups ?? []).flatMap((g) => (g.preferredVersion ? [g.preferredVersion.groupVersion] : []))];
  const out: Resource[] = [];
  for (const gv of groupVersions) {
    let list: { resources?: readonly ApiResourceEntry[] };
    try {
      list = await request(gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    } catch {
      continue; // a group that went away (a CRD deleted meanwhile)
    }
    for (const r of list.resources ?? []) {
      const verbs = r.verbs ?? [];
      if (r.name.includes('/') || !['list', 'watch', 'delete'].every((v) => verbs.includes(v))) continue;
      out.push({ apiVersion: gv, kind: r.kind, plural: r.name, namespaced: r.namespaced });
    }
  }
  return out;
}

/** `plural.group` of a resource (the GC's and the namespace controller's resource key). */
export function resourceKey(r: Resource): string {
  const slash = r.apiVersion.indexOf('/');
  return slash < 0 ? r.plural : `${r.plural}.${r.apiVersion.slice(0, slash)}`;
}
