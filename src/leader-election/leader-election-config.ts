import type { SchedulerLike } from 'rxjs';
import { ConfigError, type ErrorLayer } from '../api/rxkube-error.js';
import type { LeaseLock } from './lease-lock.js';

/** client-go's JitterFactor: acquire retries wait a random time in `[retryPeriod, (1 + 1.2)·retryPeriod)`. */
export const JITTER_FACTOR = 1.2;

/** Defaults of controller-runtime's manager (docs/semantics.md CR-11): 15 s / 10 s / 2 s. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/** Configuration of {@link rxkube!leaderElection}. Durations are milliseconds on `scheduler`'s clock. */
export interface LeaderElectionConfig {
  /** The lock on the Lease; its `identity` is this candidate's identity (must be non-empty). */
  readonly lock: LeaseLock;
  /**
   * How long others wait, from their own observation of a changed record, before they may take the
   * lease. Written (in whole seconds) as `leaseDurationSeconds`. Default 15 s.
   */
  readonly leaseDurationMs?: number;
  /**
   * A leader stops leading once `renewDeadline` has passed since the START of its last successful
   * write; must be < leaseDuration. Default 10 s.
   */
  readonly renewDeadlineMs?: number;
  /** Wait between attempts (acquire retries are jittered, renewals are not). Default 2 s. */
  readonly retryPeriodMs?: number;
  /** Longest single attempt (get + write) before it counts as failed. Default renewDeadline / 2. */
  readonly requestTimeoutMs?: number;
  /** Jitter of acquire retries; default {@link JITTER_FACTOR}. 0 disables jitter. */
  readonly jitterFactor?: number;
  /** Release the lease (empty holder) when the election is unsubscribed while holding it (LE-7). */
  readonly releaseOnCancel?: boolean;
  /** Called (asynchronously) each time this candidate starts leading. Optional: `leading$` carries the same. */
  readonly onStartedLeading?: () => void;
  /** Called (asynchronously) each time it stops leading and once when the election stops (LE-5). */
  readonly onStoppedLeading?: () => void;
  /** Called (asynchronously) with each newly observed non-empty holder (LE-6). Optional: `leader$`. */
  readonly onNewLeader?: (identity: string) => void;
  /** Timers and clock; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Random numbers in [0, 1) for jitter; default `Math.random`. */
  readonly random?: () => number;
  /**
   * Called with every failed read or write of the lease (an API error, for example a 403 when the
   * identity may not get or update Leases, or an unreachable server); the attempt counts as lost
   * and the next one follows at the usual period. For logs: without it failures are silent, as
   * they change nothing but the outcome of that attempt. An exception it throws is ignored.
   */
  readonly onError?: (error: unknown) => void;
}

/** A config with every default filled in. */
export interface ResolvedLeaderElectionConfig {
  readonly lock: LeaseLock;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly requestTimeoutMs: number;
  readonly jitterFactor: number;
  readonly releaseOnCancel: boolean;
  readonly onStartedLeading: (() => void) | undefined;
  readonly onStoppedLeading: (() => void) | undefined;
  readonly onNewLeader: ((identity: string) => void) | undefined;
  readonly onError: ((error: unknown) => void) | undefined;
  readonly scheduler: SchedulerLike | undefined;
  readonly random: () => number;
}

/**
 * A leader-election config that failed validation (LE-1); `field` (and `option`, as for every
 * {@link ConfigError}) names the offending option.
 */
export class LeaderElectionConfigError extends ConfigError {
  static override readonly code: string = 'LEADER_ELECTION_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'leader-election';
  override readonly name = 'LeaderElectionConfigError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, { option: field });
  }
}

/** The three durations of an election, defaults filled in (milliseconds). */
export interface LeaseTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/**
 * Fills the CR-11 defaults of the three durations and validates them in client-go's order (LE-1):
 * numbers; leaseDuration > renewDeadline; renewDeadline > {@link JITTER_FACTOR} × retryPeriod; all
 * three > 0; leaseDuration at least 1 s (it is written in whole seconds). The one duration check of
 * both {@link resolveLeaderElectionConfig} and the manager's leader-election options. Throws
 * {@link LeaderElectionConfigError}.
 */
export function resolveLeaseTimings(config: Partial<LeaseTimings>): LeaseTimings {
  const leaseDuration = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadline = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriod = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  for (const [field, value] of [
    ['leaseDurationMs', leaseDuration],
    ['renewDeadlineMs', renewDeadline],
    ['retryPeriodMs', retryPeriod],
  ] as const) {
    if (typeof value !== 'number' || Number.isNaN(value)) throw new LeaderElectionConfigError(field, `${field} must be a number`);
  }
  if (leaseDuration <= renewDeadline) {
    throw new LeaderElectionConfigError('leaseDurationMs', 'leaseDurationMs must be greater than renewDeadlineMs');
  }
  if (renewDeadline <= JITTER_FACTOR * retryPeriod) {
    throw new LeaderElectionConfigError('renewDeadlineMs', `renewDeadlineMs must be greater than retryPeriodMs × jitterFactor`);
  }
  if (leaseDuration < 1) throw new LeaderElectionConfigError('leaseDurationMs', 'leaseDurationMs must be greater than zero');
  if (renewDeadline < 1) throw new LeaderElectionConfigError('renewDeadlineMs', 'renewDeadlineMs must be greater than zero');
  if (retryPeriod < 1) throw new LeaderElectionConfigError('retryPeriodMs', 'retryPeriodMs must be greater than zero');
  if (leaseDuration < 1000) {
    throw new LeaderElectionConfigError('leaseDurationMs', 'leaseDurationMs must be at least 1 s (it is written in whole seconds)');
  }
  return { leaseDurationMs: leaseDuration, renewDeadlineMs: renewDeadline, retryPeriodMs: retryPeriod };
}

/**
 * Fills defaults and validates in client-go's order (docs/semantics.md LE-1): leaseDuration > renewDeadline;
 * renewDeadline > jitterFactor × retryPeriod; all three > 0; callbacks, when given, are functions;
 * lock present; identity non-empty. Throws {@link LeaderElectionConfigError}.
 */
export function resolveLeaderElectionConfig(config: LeaderElectionConfig): ResolvedLeaderElectionConfig {
  const timings = resolveLeaseTimings(config);
  const renewDeadline = timings.renewDeadlineMs;
  const jitterFactor = config.jitterFactor ?? JITTER_FACTOR;
  const requestTimeout = config.requestTimeoutMs ?? renewDeadline / 2;
  if (!(requestTimeout > 0)) throw new LeaderElectionConfigError('requestTimeout', 'requestTimeout must be greater than zero');
  if (!(jitterFactor >= 0)) throw new LeaderElectionConfigError('jitterFactor', 'jitterFactor must be >= 0');
  for (const field of ['onStartedLeading', 'onStoppedLeading', 'onNewLeader', 'onError'] as const) {
    const cb: unknown = config[field];
    if (cb !== undefined && typeof cb !== 'function') throw new LeaderElectionConfigError(field, `${field} must be a function`);
  }
  if ((config.lock as LeaseLock | undefined | null) == null) throw new LeaderElectionConfigError('lock', 'Lock must not be nil.');
  if (typeof config.lock.identity !== 'string' || config.lock.identity === '') {
    throw new LeaderElectionConfigError('lock.identity', 'Lock identity is empty');
  }
  return {
    lock: config.lock,
    ...timings,
    requestTimeoutMs: requestTimeout,
    jitterFactor,
    releaseOnCancel: config.releaseOnCancel ?? false,
    onStartedLeading: config.onStartedLeading,
    onStoppedLeading: config.onStoppedLeading,
    onNewLeader: config.onNewLeader,
    onError: config.onError,
    scheduler: config.scheduler,
    random: config.random ?? Math.random,
  };
}
