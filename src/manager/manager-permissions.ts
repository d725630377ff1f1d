import type { Permission } from '../api/permission.js';
import type { Runnable } from '../api/runnable.js';
import { LEASE_RESOURCE } from '../leader-election/kube-client-lease-api.js';
import { classifyRunnable } from './classify-runnable.js';
import type { ManagerLeaderElectionConfig } from './leader-election-options.js';
import { rbacRules, type RbacRules, type ResourceResolver } from './rbac.js';

const EVENTS = { apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true } as const;
/** A recorder writes events.k8s.io/v1 Events where the server serves them, core/v1 otherwise. */
const EVENTS_V1 = { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events', namespaced: true } as const;

/** What {@link managerPermissions} derives the rules from. */
export interface ManagerPermissionSources {
  readonly runnables: readonly Runnable[];
  /** Event recorders the manager made (Events are created and patched). */
  readonly recorders: number;
  /** The default Lease election, when enabled. */
  readonly leaderElection: ManagerLeaderElectionConfig | undefined;
  readonly resolve: ResourceResolver | undefined;
}

/**
 * The manager's RBAC rules: every runnable's `permissions()`, Events when it records them, and its
 * Lease. Permissions without a namespace apply where the caches look: the namespaces of the cache
 * runnables' permissions, or cluster-wide when one of them reads all namespaces (or none is given).
 */
export async function managerPermissions(sources: ManagerPermissionSources): Promise<RbacRules> {
  const all: Permission[] = [];
  const cacheScopes: (string | null | undefined)[] = [];
  for (const r of sources.runnables) {
    const permissions = r.permissions?.() ?? [];
    all.push(...permissions);
    if (classifyRunnable(r) === 'caches') cacheScopes.push(...permissions.map((p) => p.namespace));
  }
  if (sources.recorders > 0) all.push({ resource: EVENTS, verbs: ['create', 'patch'] }, { resource: EVENTS_V1, verbs: ['create', 'patch'] });
  const le = sources.leaderElection;
  if (le !== undefined) all.push({ resource: LEASE_RESOURCE, verbs: ['get', 'create', 'update'], namespace: le.namespace });
  const scope =
    cacheScopes.length === 0 || cacheScopes.some((s) => s === null || s === undefined)
      ? null
      : new Set(cacheScopes.filter((s): s is string => typeof s === 'string'));
  return rbacRules(all, scope, sources.resolve);
}
