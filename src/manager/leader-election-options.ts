import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
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
   * Creates the elector. Default: rxkube's Lease-based election (`leaseLeadership`) through the
   * manager's client, on the manager's scheduler.
   */
  readonly elector?: LeadershipFactory;
}

/** Where in-cluster pods find their namespace. */
export const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * Applies CR-11 defaults and LE-1 validation; throws {@link ManagerConfigError} on bad input.
 * `readNamespace` is injectable for tests.
 */
export function resolveManagerLeaderElection(
  options: ManagerLeaderElectionOptions,
  readNamespace: () => string | undefined = readInClusterNamespace,
): ManagerLeaderElectionConfig {
  if (!options.id) throw new ManagerConfigError('LeaderElectionID must be configured', { option: 'leaderElection.id' });
  const leaseDuration = options.leaseDurationMs ?? 15_000;
  const renewDeadline = options.renewDeadlineMs ?? 10_000;
  const retryPeriod = options.retryPeriodMs ?? 2_000;
  if (!(leaseDuration > renewDeadline)) {
    throw new ManagerConfigError('leaseDurationMs must be greater than renewDeadlineMs', { option: 'leaderElection.leaseDurationMs' });
  }
  if (!(renewDeadline > 1.2 * retryPeriod)) {
    throw new ManagerConfigError('renewDeadlineMs must be greater than retryPeriodMs × jitterFactor', {
      option: 'leaderElection.renewDeadlineMs',
    });
  }
  if (!(leaseDuration > 0 && renewDeadline > 0 && retryPeriod > 0)) {
    const option = !(leaseDuration > 0) ? 'leaseDurationMs' : !(renewDeadline > 0) ? 'renewDeadlineMs' : 'retryPeriodMs';
    throw new ManagerConfigError('leaseDurationMs, renewDeadlineMs and retryPeriodMs must be greater than zero', {
      option: `leaderElection.${option}`,
    });
  }
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
    leaseDurationMs: leaseDuration,
    renewDeadlineMs: renewDeadline,
    retryPeriodMs: retryPeriod,
    releaseOnCancel: options.releaseOnCancel ?? false,
  };
}

function readInClusterNamespace(): string | undefined {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
