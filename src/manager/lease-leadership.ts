import type { SchedulerLike } from 'rxjs';
import { leaderElection } from '../leader-election/leader-election.js';
import type { LeaseApi } from '../leader-election/lease-api.js';
import { LeaseLock } from '../leader-election/lease-lock.js';
import type { Logger } from '../logging/logger.js';
import type { LeadershipFactory } from './leader-election-options.js';

/** Options of {@link leaseLeadership}. */
export interface LeaseLeadershipOptions {
  /** Timers and clock of the election; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Labels merged into the Lease on every write. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Where failed reads and writes of the Lease are logged (warn, with the lease and the error):
   * a missing RBAC rule or an unreachable server shows up instead of a silent wait. The manager
   * passes its own logger.
   */
  readonly logger?: Logger;
}

/**
 * A {@link LeadershipFactory} running rxkube's Lease-based leader election (`leaderElection` from
 * the leader-election module) on `api`, with the manager's resolved id, namespace, identity,
 * durations and `releaseOnCancel`.
 */
export function leaseLeadership(api: LeaseApi, options: LeaseLeadershipOptions = {}): LeadershipFactory {
  return (c) =>
    leaderElection({
      lock: new LeaseLock(
        api,
        { namespace: c.namespace, name: c.id },
        c.identity,
        options.labels === undefined ? {} : { labels: options.labels },
      ),
      leaseDurationMs: c.leaseDurationMs,
      renewDeadlineMs: c.renewDeadlineMs,
      retryPeriodMs: c.retryPeriodMs,
      releaseOnCancel: c.releaseOnCancel,
      ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
      ...(options.logger === undefined
        ? {}
        : { onError: (err: unknown) => options.logger?.warn('failed to acquire or renew the leader lease', { lease: `${c.namespace}/${c.id}`, identity: c.identity, err }) }),
    });
}
