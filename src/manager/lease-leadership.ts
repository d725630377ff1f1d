import type { SchedulerLike } from 'rxjs';
import { Observable } from 'rxjs';
import type { KubeClient } from '../client/kube-client.js';
import { leaderElection } from '../leader-election/leader-election.js';
import type { LeaseApi, LeaseRef } from '../leader-election/lease-api.js';
import { LeaseLock } from '../leader-election/lease-lock.js';
import type { Lease } from '../leader-election/lease.js';
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
      leaseDuration: c.leaseDuration,
      renewDeadline: c.renewDeadline,
      retryPeriod: c.retryPeriod,
      releaseOnCancel: c.releaseOnCancel,
      ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    });
}

const LEASE_RESOURCE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true } as const;

function fromAbortable<T>(call: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const ac = new AbortController();
    call(ac.signal).then(
      (value) => {
        subscriber.next(value);
        subscriber.complete();
      },
      (err: unknown) => subscriber.error(err),
    );
    return () => ac.abort();
  });
}

/** A {@link LeaseApi} over the HTTP client (GET, POST, PUT of `coordination.k8s.io/v1` Leases). */
export function clientLeaseApi(client: KubeClient): LeaseApi {
  const leases = (ns: string) => client.objects<Lease>(LEASE_RESOURCE, ns);
  return {
    get: (ref: LeaseRef) => fromAbortable((signal) => leases(ref.namespace).get(ref.name, { signal })),
    create: (lease: Lease) =>
      fromAbortable((signal) => leases(lease.metadata?.namespace ?? '').create(lease, { signal })),
    update: (lease: Lease) =>
      fromAbortable((signal) => leases(lease.metadata?.namespace ?? '').replace(lease, { signal })),
  };
}
