import { asyncScheduler, distinctUntilChanged, map, Observable, ReplaySubject, share } from 'rxjs';
import { type LeaderElectionConfig, resolveLeaderElectionConfig } from './leader-election-config.js';
import { LeaderElector } from './leader-elector.js';
import { LeaderElectionRun } from './leader-election-run.js';
import type { LeaderElectionState } from './leader-election-state.js';
import { whileLeading } from './while-leading.js';

/** A running-on-subscribe leader election; see {@link leaderElection}. */
export interface LeaderElection {
  /** This candidate's identity. */
  readonly identity: string;
  /** State snapshots (distinct), starting with the current one. Subscribing starts the candidate. */
  readonly state$: Observable<LeaderElectionState>;
  /** Whether this candidate leads (distinct), starting with `false`. */
  readonly leading$: Observable<boolean>;
  /** The observed holder (distinct; `undefined` = free / unknown). */
  readonly leader$: Observable<string | undefined>;
  /** Subscribes to `work()` while leading, unsubscribes on loss (see {@link whileLeading}). Also starts the candidate. */
  whileLeading<T>(work: () => Observable<T>): Observable<T>;
  /**
   * Clock-checked leadership: a run is active, it leads, and the renew deadline has not passed on
   * the scheduler's clock. Work that acts on the outside world after a possible pause (GC, SIGSTOP)
   * should check this right before acting; the timer-driven `leading$` may be late after a pause.
   */
  isLeading(): boolean;
  /** LE-8 `isLeader`: the last observed holder is this candidate. */
  isLeader(): boolean;
  /** LE-8 health check: an error when leader and no renewal observed for leaseDuration + tolerance. */
  check(maxTolerableExpiredLease?: number): Error | undefined;
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease (docs/semantics.md §7), as Observables. Validates
 * `config` at once (LE-1, throws `LeaderElectionConfigError`). Nothing runs until `state$`,
 * `leading$`, `leader$` or `whileLeading(...)` is subscribed; all share one candidate, which stops
 * (and, with `releaseOnCancel`, releases the lease) when the last subscriber leaves.
 *
 * Timing (all on `scheduler`):
 * - acquire (LE-5): try at once, then after `retryPeriod·[1, 1+jitterFactor)`, but no later than the
 *   instant the observed lease of another holder expires (measured from when THIS candidate saw the
 *   record change, LE-4), so a free lease is taken within one retry of its expiry;
 * - renew: every `retryPeriod` after the previous attempt ends, each attempt bounded by
 *   `requestTimeout` and by the renew deadline;
 * - a leader stops leading (`leading$` emits false, synchronously tearing down `whileLeading` work)
 *   when `renewDeadline` has passed since the start of its last successful write, or at once when
 *   it observes another holder. Since others wait `leaseDuration` from their own observation of
 *   that write, which happened after its start, two candidates cannot lead at once as long as
 *   their clock rates differ by less than the factor leaseDuration / renewDeadline (1.5 with the
 *   defaults).
 * - after losing, the candidate keeps competing (it does not stop); unsubscribe to stop.
 *
 * Marble (virtual time, zero latency, free lease; every write fails from t = 1 ms on):
 * ```
 * leading$:  (ft) 9996ms f        t at 0 (acquired), f at 10 000 = start of last success + renewDeadline
 * requests:  get,create@0  update@2000 ✗  update@4000 ✗ … (renewals every retryPeriod)
 * ```
 */
export function leaderElection(config: LeaderElectionConfig): LeaderElection {
  const cfg = resolveLeaderElectionConfig(config);
  const scheduler = cfg.scheduler ?? asyncScheduler;
  const identity = cfg.lock.identity;
  const elector = new LeaderElector(cfg.lock, cfg.leaseDurationMs, scheduler, cfg.onError);
  // One run per connection of the shared streams below (never two at once).
  let current: LeaderElectionRun | undefined;

  const run$ = new Observable<LeaderElectionState>((subscriber) => {
    const run = new LeaderElectionRun(cfg, elector, scheduler, subscriber);
    current = run;
    run.start();
    return () => run.stop();
  });

  const state$ = run$.pipe(
    share({ connector: () => new ReplaySubject<LeaderElectionState>(1), resetOnRefCountZero: true }),
  );
  const leading$ = state$.pipe(
    map((s) => s.leading),
    distinctUntilChanged(),
  );
  const leader$ = state$.pipe(
    map((s) => s.leader),
    distinctUntilChanged(),
  );

  return {
    identity,
    state$,
    leading$,
    leader$,
    whileLeading: <T>(work: () => Observable<T>) => whileLeading(leading$, work),
    isLeading: () => current?.isLeading() === true,
    isLeader: () => elector.isLeader(),
    check: (maxTolerableExpiredLease = 0) => elector.check(maxTolerableExpiredLease),
  };
}

