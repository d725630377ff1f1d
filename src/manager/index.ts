/**
 * `rxkube/manager`: manager extras: lease leadership, DEPS keys, the manager's errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/manager
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { leaseLeadership } from './lease-leadership.js';
export type { LeaseLeadershipOptions } from './lease-leadership.js';
export { CacheSyncError, DuplicateControllerNameError, GracefulShutdownTimeoutError, LeaderElectionLostError, ManagerAlreadyStartedError, ManagerCacheSyncTimeoutError, ManagerConfigError, UncaughtError } from './manager-errors.js';
export { DEPS } from './deps.js';
// Readiness after sync: the default of `ManagerOptions.watchFailureThresholdMs` (the check `informers`).
export { DEFAULT_WATCH_FAILURE_THRESHOLD_MS } from './cache-monitor.js';
// Everything a manager needs installed: its RBAC and the registrations of the webhooks it serves.
export { managerManifests } from './manager-manifests.js';
export type { ManagerManifestsOptions } from './manager-manifests.js';
