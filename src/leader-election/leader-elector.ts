import { asyncScheduler, catchError, defer, map, type Observable, of, type SchedulerLike, switchMap } from 'rxjs';
import { type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';
import { isConflict, isNotFound } from '../client/api-error.js';
import type { LeaderElectionRecord } from './lease.js';
import type { LeaseLock, ObservedRecord } from './lease-lock.js';

/** The lease is held and not renewed in time (LE-8 health check). */
export class LeaderElectionHealthError extends RxkubeError {
  static override readonly code: string = 'LEADER_ELECTION_UNHEALTHY';
  static override readonly layer: ErrorLayer = 'leader-election';
  override readonly name = 'LeaderElectionHealthError';
  constructor(leaseName: string) {
    super(`failed election to renew leadership on lease ${leaseName}`);
  }
}

/**
 * The single-attempt core of leader election (docs/semantics.md LE-4, LE-7, LE-8): one candidate's
 * view of the lease. It remembers the last record it observed and WHEN it observed it change, on
 * its own clock (`scheduler.now()`), and never trusts the timestamps inside the record, so clock
 * offsets between candidates do not matter. The loops (LE-5) live in {@link leaderElection}.
 */
export class LeaderElector {
  private observed: LeaderElectionRecord | undefined;
  private observedRaw: string | undefined;
  private observedAt = 0;
  private readonly scheduler: SchedulerLike;

  constructor(
    private readonly lock: LeaseLock,
    /** Lease duration in ms; written as whole seconds. */
    private readonly leaseDuration: number,
    scheduler?: SchedulerLike,
    /** Told about every failed read or write of the lease (the attempt then counts as lost). */
    private readonly onError?: (error: unknown) => void,
  ) {
    this.scheduler = scheduler ?? asyncScheduler;
  }

  /** Reports `error` to `onError` (whose own failures are ignored: reporting never stops the election). */
  private failed(error: unknown): void {
    try {
      this.onError?.(error);
    } catch {
      // a throwing reporter must not end the election
    }
  }

  /** This candidate's identity. */
  get identity(): string {
    return this.lock.identity;
  }

  /** The last record observed, if any. */
  get observedRecord(): LeaderElectionRecord | undefined {
    return this.observed;
  }

  /** When (this clock) the observed record last changed. */
  get observedTime(): number {
    return this.observedAt;
  }

  /** The observed holder, or `undefined` when none / free. */
  observedHolder(): string | undefined {
    const holder = this.observed?.holderIdentity;
    return holder === undefined || holder === '' ? undefined : holder;
  }

  /** LE-8: the observed holder is this candidate (by observation, not by renew deadline). */
  isLeader(): boolean {
    return this.observed !== undefined && this.observed.holderIdentity === this.lock.identity;
  }

  /** When (this clock) the observed lease expires for this candidate. */
  observedExpiry(): number {
    return this.observedAt + (this.observed?.leaseDurationSeconds ?? 0) * 1000;
  }

  /**
   * LE-8: `undefined` when healthy; an error when this candidate is the observed holder and has not
   * observed a renewal for longer than leaseDuration + maxTolerableExpiredLease.
   */
  check(maxTolerableExpiredLease = 0): Error | undefined {
    if (!this.isLeader()) return undefined;
    if (this.scheduler.now() - this.observedAt > this.leaseDuration + maxTolerableExpiredLease) {
      return new LeaderElectionHealthError(this.lock.describe());
    }
    return undefined;
  }

  /**
   * LE-4: one attempt to acquire or renew. Emits `true` once if this candidate wrote the lease as
   * holder, else `false` (valid lease held by another, conflict, or any API error); never errors.
   * Uses the fast path (update without get) while this candidate is the validly observed holder.
   */
  tryAcquireOrRenew(): Observable<boolean> {
    return defer(() => {
      const now = this.scheduler.now();
      const desired: LeaderElectionRecord = {
        holderIdentity: this.lock.identity,
        leaseDurationSeconds: Math.floor(this.leaseDuration / 1000),
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      };
      const slow$ = this.slowPath(desired, now);
      const observed = this.observed;
      if (observed !== undefined && this.isLeader() && this.observedExpiry() > now) {
        const renewed = { ...desired, acquireTime: observed.acquireTime, leaseTransitions: observed.leaseTransitions };
        return this.lock.update(renewed).pipe(
          map((written) => this.observe(written, true)),
          catchError(() => slow$),
        );
      }
      return slow$;
    });
  }

  /**
   * LE-7: give the lease up. Gets the lease; if this candidate is not the holder there is nothing
   * to do (`true`); else writes an empty holder with leaseDurationSeconds 1, retrying the whole
   * release on Conflict. Emits `false` on any other error. Callers bound it with a timeout.
   */
  release(): Observable<boolean> {
    return defer(() => this.lock.get()).pipe(
      switchMap((got) => {
        this.observe(got, false);
        if (!this.isLeader()) return of(true);
        const now = this.scheduler.now();
        const released: LeaderElectionRecord = {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: this.observed?.leaseTransitions ?? 0,
        };
        return this.lock.update(released).pipe(map((written) => this.observe(written, true)));
      }),
      catchError((err: unknown) => (isConflict(err) ? this.release() : this.lost(err))),
    );
  }

  /** A failed attempt: reported, and counted as not holding the lease. */
  private lost(error: unknown): Observable<boolean> {
    this.failed(error);
    return of(false);
  }

  private slowPath(desired: LeaderElectionRecord, now: number): Observable<boolean> {
    return this.lock.get().pipe(
      switchMap((got) => {
        this.observe(got, false);
        const observed = got.record;
        if (observed.holderIdentity !== '' && this.observedExpiry() > now && !this.isLeader()) return of(false);
        const record: LeaderElectionRecord = this.isLeader()
          ? { ...desired, acquireTime: observed.acquireTime, leaseTransitions: observed.leaseTransitions }
          : { ...desired, leaseTransitions: observed.leaseTransitions + 1 };
        return this.lock.update(record).pipe(
          map((written) => this.observe(written, true)),
          catchError((err: unknown) => this.lost(err)),
        );
      }),
      catchError((err: unknown) =>
        isNotFound(err)
          ? this.lock.create(desired).pipe(
              map((written) => this.observe(written, true)),
              catchError((e: unknown) => this.lost(e)),
            )
          : this.lost(err),
      ),
    );
  }

  /**
   * Adopts `got` as observed, stamping the time on this clock, when its raw form changed or when
   * this candidate just wrote it (`written`). Returns `written`.
   */
  private observe(got: ObservedRecord, written: boolean): boolean {
    if (written || got.raw !== this.observedRaw) {
      this.observed = got.record;
      this.observedRaw = got.raw;
      this.observedAt = this.scheduler.now();
    }
    return written;
  }
}
