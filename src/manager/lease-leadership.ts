import type { SchedulerLike } from 'rxjs';
import { leaderElection } from '../leader-election/leader-election.js';
import type { LeaseApi } from '../leader-election/lease-api.js';
import { LeaseLock } from '../leader-election/lease-lock.js';
import type { LeadershipFactory } from './leader-election-options.js';

/** Options of {@link leaseLeadership}. */
export interface LeaseLeadershipOptions {
  /** Timers and clock of the election; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Labels merged into the Lease on every write. */
  readonly labels?: Readonly<Record<string, string>>;
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
    });
}
