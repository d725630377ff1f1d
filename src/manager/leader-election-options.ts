import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import {
  LeaderElectionConfigError,
  type LeaseTimings,
  resolveLeaseTimings,
} from '../leader-election/leader-election-config.js';
import { ManagerConfigError } from './manager-errors.js';

/**
 * A running leader election as the manager consumes it. Subscribing to `leading$` campaigns for
 * the lease; it emits `true` when this process becomes leader and `false` when it stops leading.
 * Unsubscribing stops campaigning (and releases the lease if configured to).
 */
export interface Leadership {
  readonly leading$: Observable<boolean>;
}

/** The resolved configuration handed to a {@link LeadershipFactory}. Durations in ms. */
export interface ManagerLeaderElectionConfig {
  readonly id: string;
  readonly namespace: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly releaseOnCancel: boolean;
  /** Labels merged into the Lease on every write (empty when none were configured). */
  readonly labels: Readonly<Record<string, string>>;
}

/** Builds the elector for a resolved config (e.g. a Lease-based one over the manager's client). */
export type LeadershipFactory = (config: ManagerLeaderElectionConfig) => Leadership;

/** Leader-election options of the manager (CR-11 defaults: 15 s / 10 s / 2 s). */
export interface ManagerLeaderElectionOptions {
  /** `LeaderElectionID`: the Lease name. Required. */
  readonly id: string;
  /** Lease namespace; default: the in-cluster service-account namespace. */
  readonly namespace?: string;
  /** Default `<hostname>_<uuid>`. */
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly releaseOnCancel?: boolean;
  /**
   * Labels merged into the Lease on every create and update (for example to let a cluster's
   * tooling select the leases of one operator). Keys and values are not validated here; the
   * server refuses invalid ones and the refusal is logged with each failed attempt.
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Creates the elector. Default: rxkube's Lease-based election (`leaseLeadership`) through the
   * manager's client, on the manager's scheduler.
   */
  readonly elector?: LeadershipFactory;
}

/** Where in-cluster pods find their namespace. */
export const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * The durations with CR-11 defaults, validated by the leader election's own LE-1 check
 * (`resolveLeaseTimings`); its error becomes a {@link ManagerConfigError} with the same message,
 * the original as `cause`.
 */
function leaseTimings(options: ManagerLeaderElectionOptions): LeaseTimings {
  try {
    return resolveLeaseTimings(options);
  } catch (err) {
    if (err instanceof LeaderElectionConfigError) {
      throw new ManagerConfigError(err.message, { cause: err, option: `leaderElection.${err.field}` });
    }
    throw err;
  }
}

/**
 * Applies CR-11 defaults and LE-1 validation; throws {@link ManagerConfigError} on bad input.
 * `readNamespace` is injectable for tests.
 */
export function resolveManagerLeaderElection(
  options: ManagerLeaderElectionOptions,
  readNamespace: () => string | undefined = readInClusterNamespace,
): ManagerLeaderElectionConfig {
  if (!options.id) throw new ManagerConfigError('LeaderElectionID must be configured', { option: 'leaderElection.id' });
  const timings = leaseTimings(options);
  const namespace = options.namespace ?? readNamespace();
  if (!namespace) {
    throw new ManagerConfigError(
      'unable to find leader election namespace: not running in-cluster, please specify a leader election namespace',
      { option: 'leaderElection.namespace' },
    );
  }
  return {
    id: options.id,
    namespace,
    identity: options.identity ?? `${hostname()}_${randomUUID()}`,
    ...timings,
    releaseOnCancel: options.releaseOnCancel ?? false,
    labels: { ...options.labels },
  };
}

function readInClusterNamespace(): string | undefined {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
