/** An RBAC verb (the ones rxkube's clients use). */
export type PermissionVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * One thing a runnable does on the API server, for deriving its RBAC rules: `verbs` on a resource
 * (and optionally one of its subresources), in one namespace or cluster-wide.
 *
 * ```ts
 * const permissions: Permission[] = [
 *   { resource: { apiVersion: 'v1', kind: 'Pod', plural: 'pods' }, verbs: ['create', 'delete'] },
 *   { resource: resources.replicaSets, subresource: 'status', verbs: ['update'] },
 * ];
 * ```
 */
export interface Permission {
  /** The resource type; without `plural` (or `namespaced`) it is resolved through discovery. */
  readonly resource: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly plural?: string;
    readonly namespaced?: boolean;
  };
  /** A subresource such as `status` or `scale`. */
  readonly subresource?: string;
  readonly verbs: readonly PermissionVerb[];
  /**
   * Where: a namespace, `null` for every namespace (a ClusterRole rule). Absent: wherever the
   * manager's informers look (their namespaces, or everywhere if one watches all namespaces).
   */
  readonly namespace?: string | null;
}
