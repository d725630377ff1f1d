/**
 * Resource types, object shapes and cluster discovery shared by the controllers of
 * rxkube-controller-manager. Everything here uses rxkube's public API only.
 */
import { resources, type K8s, type KubeClient, type KubeObject, type OwnerReference, type ResolvedResourceType } from 'rxkube';

/** A resource with `plural` and `namespaced` known. */
export type Resource = ResolvedResourceType;

export const NAMESPACES = resources.namespaces;
export const NODES = resources.nodes;
export const PODS = resources.pods;
export const REPLICA_SETS = resources.replicaSets;
export const DEPLOYMENTS = resources.deployments;

export type Deployment = K8s.Deployment;
export type DeploymentStatus = NonNullable<Deployment['status']>;
export type DeploymentCondition = NonNullable<DeploymentStatus['conditions']>[number];

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
