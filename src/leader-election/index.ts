/**
 * `rxkube/leader-election`: leader election beyond leaderElection/whileLeading: the Lease API on a client, its errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/leader-election
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { kubeClientLeaseApi } from './kube-client-lease-api.js';
export { LeaderElectionConfigError } from './leader-election-config.js';
export type { LeaderElectionConfig } from './leader-election-config.js';
export { LeaderElectionHealthError } from './leader-elector.js';
export { isLeadershipLost, LeadershipLostError } from './leadership-lost-error.js';
