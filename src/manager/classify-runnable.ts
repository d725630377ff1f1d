import type { Runnable } from '../api/runnable.js';

/** The manager's runnable groups, in start order (CR-12, CR-13). */
export type RunnableGroupName = 'httpServers' | 'webhooks' | 'caches' | 'others' | 'leaderElection';

function needsLeaderElection(r: Runnable): boolean | undefined {
  const n = r.needLeaderElection;
  return typeof n === 'function' ? n.call(r) : n;
}

/** Whether a runnable exposes a cache (`waitForSync` or `synced$`). */
export function isCacheRunnable(r: Runnable): boolean {
  return typeof r.waitForSync === 'function' || r.synced$ !== undefined;
}

/**
 * The group a runnable belongs to (CR-12): HTTP servers (unless they need leadership), webhook
 * servers, then caches, then runnables that declare `needLeaderElection: false`, else the leader-election group.
 */
export function classifyRunnable(r: Runnable): RunnableGroupName {
  if (r.isHttpServer === true) return needsLeaderElection(r) === true ? 'leaderElection' : 'httpServers';
  if (r.isWebhookServer === true) return 'webhooks';
  if (isCacheRunnable(r)) return 'caches';
  if (needsLeaderElection(r) === false) return 'others';
  return 'leaderElection';
}
