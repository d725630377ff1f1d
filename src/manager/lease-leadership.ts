import type { SchedulerLike } from 'rxjs';
import type { EventRecorder } from '../events/event-recorder.js';
import { leaderElection } from '../leader-election/leader-election.js';
import type { LeaseApi } from '../leader-election/lease-api.js';
import { LeaseLock } from '../leader-election/lease-lock.js';
import type { Logger } from '../logging/logger.js';
import type { LeadershipFactory } from './leader-election-options.js';

/** Options of {@link leaseLeadership}. */
export interface LeaseLeadershipOptions {
  /** Timers and clock of the election; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Labels merged into the Lease on every write, under the config's own `labels`. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Records the `LeaderElection` Events on the Lease (`<identity> became leader`, `<identity>
   * stopped leading`), given the resolved identity. The manager passes its recorder for the
   * identity, as controller-runtime does.
   */
  readonly eventRecorder?: (identity: string) => EventRecorder;
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
 * durations, `releaseOnCancel` and Lease labels; Events on the Lease when given a recorder.
 */
export function leaseLeadership(api: LeaseApi, options: LeaseLeadershipOptions = {}): LeadershipFactory {
  return (c) =>
    leaderElection({
      lock: new LeaseLock(
        api,
        { namespace: c.namespace, name: c.id },
        c.identity,
        {
          labels: { ...options.labels, ...c.labels },
          ...(options.eventRecorder === undefined ? {} : { eventRecorder: options.eventRecorder(c.identity) }),
        },
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
