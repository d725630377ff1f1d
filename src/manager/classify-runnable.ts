import type { Runnable } from '../api/runnable.js';

/** The manager's runnable groups, in start order (CR-12, CR-13). */
export type RunnableGroupName = 'httpServers' | 'webhooks' | 'caches' | 'others' | 'warmup' | 'leaderElection';

function needsLeaderElection(r: Runnable): boolean | undefined {
  const n = r.needLeaderElection;
  return typeof n === 'function' ? n.call(r) : n;
}

/** Whether a runnable exposes a cache (`waitForSync` or `synced$`). */
export function isCacheRunnable(r: Runnable): boolean {
  return typeof r.waitForSync === 'function' || r.synced$ !== undefined;
}

/**
 * The warm-up runnable of a leader-election runnable that offers `warmup` (CR-12 warmup group):
 * its `warmup(signal)` as a runnable of the warm-up group; undefined for any other runnable.
 */
export function warmupOf(r: Runnable): Runnable | undefined {
  const warmup = r.warmup;
  if (typeof warmup !== 'function' || classifyRunnable(r) !== 'leaderElection') return undefined;
  return { name: `${r.name ?? 'runnable'} warmup`, start: (signal) => warmup.call(r, signal) };
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
