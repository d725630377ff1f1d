export {
  formatMicroTime,
  leaseSpecToRecord,
  parseMicroTime,
  recordToLeaseSpec,
} from './lease.js';
export type {
  LeaderElectionRecord,
  Lease,
  LeaseSpec,
} from './lease.js';
export type {
  LeaseApi,
  LeaseRef,
} from './lease-api.js';
export {
  LeaseLock,
  LeaseNotInitializedError,
  observedRecordOf,
} from './lease-lock.js';
export type {
  LeaseLockOptions,
  ObservedRecord,
} from './lease-lock.js';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  LeaderElectionConfigError,
  resolveLeaderElectionConfig,
} from './leader-election-config.js';
export type {
  LeaderElectionConfig,
  ResolvedLeaderElectionConfig,
} from './leader-election-config.js';
export {
  LeaderElectionHealthError,
  LeaderElector,
} from './leader-elector.js';
export {
  leaderElection,
} from './leader-election.js';
export type {
  LeaderElection,
  LeaderElectionState,
} from './leader-election.js';
export {
  whileLeading,
} from './while-leading.js';
export {
  LEASE_RESOURCE,
  kubeClientLeaseApi,
} from './kube-client-lease-api.js';
