import { of, type SchedulerLike, type Subscriber, type Subscription, timeout } from 'rxjs';
import type { ResolvedLeaderElectionConfig } from './leader-election-config.js';
import type { LeaderElectionState } from './leader-election-state.js';
import type { LeaderElector } from './leader-elector.js';

/**
 * Phases of one run of a candidate (LE-5):
 * - `acquiring`: trying to take the lease, retrying with jitter (also after losing it: the
 *   candidate keeps competing);
 * - `leading`: holds the lease and renews it every `retryPeriod` until a renewal fails past the
 *   renew deadline, or another holder is observed (lost → `acquiring`);
 * - `stopped`: unsubscribed; requests and timers cancelled, the lease released when configured (LE-7).
 */
export type LeaderElectionPhase = 'acquiring' | 'leading' | 'stopped';

/**
 * The candidate's state machine for one subscription of `leaderElection(...).state$`. Internal:
 * the public surface is `leaderElection()`. Every timer runs on `scheduler`; at most one attempt,
 * one retry timer and one renew-deadline timer are live at any time, and `stop()` cancels them.
 * Phase changes happen in {@link enter} only.
 */
export class LeaderElectionRun {
  private phase: LeaderElectionPhase = 'acquiring';
  /** Start of the last successful write + renewDeadline while leading; −∞ otherwise. */
  private deadlineAt = Number.NEGATIVE_INFINITY;
  private lastAttemptStart = Number.NEGATIVE_INFINITY;
  private attemptSub: Subscription | undefined;
  private nextSub: Subscription | undefined;
  private deadlineSub: Subscription | undefined;
  /** The last holder handed to `onNewLeader` (LE-6). */
  private reported: string | undefined;
  /** The last state emitted (emissions are distinct). */
  private last: LeaderElectionState | undefined;
  private readonly identity: string;

  constructor(
    private readonly cfg: ResolvedLeaderElectionConfig,
    private readonly elector: LeaderElector,
    private readonly scheduler: SchedulerLike,
    private readonly out: Subscriber<LeaderElectionState>,
  ) {
    this.identity = cfg.lock.identity;
  }

  /** Emits the initial state and makes the first attempt at once. */
  start(): void {
    this.emit();
    this.attempt();
  }

  /** Cancels everything and ends the run (→ `stopped`). */
  stop(): void {
    if (this.phase !== 'stopped') this.enter('stopped');
  }

  /** Leads and the renew deadline has not passed on the scheduler's clock. */
  isLeading(): boolean {
    return this.phase === 'leading' && this.scheduler.now() < this.deadlineAt;
  }

  // ---- transitions ------------------------------------------------------------------------------

  /** The one place the phase changes, with the effects of entering each phase. */
  private enter(next: LeaderElectionPhase): void {
    const previous = this.phase;
    this.phase = next;
    switch (next) {
      case 'leading':
        this.cfg.lock.recordEvent('became leader');
        this.later(this.cfg.onStartedLeading);
        return;
      case 'acquiring': // lost
        this.cfg.lock.recordEvent('stopped leading');
        this.deadlineAt = Number.NEGATIVE_INFINITY;
        this.later(this.cfg.onStoppedLeading);
        return;
      case 'stopped':
        if (previous === 'leading') this.cfg.lock.recordEvent('stopped leading');
        this.attemptSub?.unsubscribe();
        this.nextSub?.unsubscribe();
        this.deadlineSub?.unsubscribe();
        this.deadlineAt = Number.NEGATIVE_INFINITY;
        this.later(this.cfg.onStoppedLeading); // also when it never led (LE-5)
        if (this.cfg.releaseOnCancel) this.release();
        return;
    }
  }

  /** Leading → acquiring: the renew deadline passed, or another holder was observed. */
  private lose(): void {
    this.deadlineSub?.unsubscribe();
    this.deadlineSub = undefined;
    if (this.phase !== 'leading') return;
    this.enter('acquiring');
    this.emit();
  }

  // ---- attempts ---------------------------------------------------------------------------------

  /** One acquire or renew, bounded by `requestTimeout` and, while leading, by the renew deadline. */
  private attempt(): void {
    const start = this.scheduler.now();
    this.lastAttemptStart = start;
    const budget =
      this.phase === 'leading' ? Math.min(this.cfg.requestTimeoutMs, this.deadlineAt - start) : this.cfg.requestTimeoutMs;
    if (budget <= 0) {
      this.lose();
      this.scheduleAttempt(this.acquireWait());
      return;
    }
    this.attemptSub = this.elector
      .tryAcquireOrRenew()
      .pipe(timeout({ first: budget, with: () => of(false), scheduler: this.scheduler }))
      .subscribe((ok) => this.settle(ok, start));
  }

  private settle(ok: boolean, start: number): void {
    this.attemptSub = undefined;
    if (this.phase === 'stopped') return;
    const now = this.scheduler.now();
    if (ok && now < start + this.cfg.renewDeadlineMs) this.succeeded(start, now);
    else this.failed();
  }

  /** A write that started at `start` succeeded: (still) leading until `start + renewDeadline`. */
  private succeeded(start: number, now: number): void {
    this.deadlineAt = start + this.cfg.renewDeadlineMs;
    this.deadlineSub?.unsubscribe();
    this.deadlineSub = this.scheduler.schedule(() => {
      this.lose();
    }, this.deadlineAt - now);
    if (this.phase === 'acquiring') this.enter('leading');
    this.reportLeader();
    this.emit();
    this.scheduleAttempt(this.cfg.retryPeriodMs);
  }

  /** The attempt failed or timed out: a leader that sees another holder loses at once. */
  private failed(): void {
    if (this.phase === 'leading' && this.elector.observedHolder() !== this.identity) this.lose();
    this.reportLeader();
    this.emit();
    this.scheduleAttempt(this.phase === 'leading' ? this.cfg.retryPeriodMs : this.acquireWait());
  }

  private scheduleAttempt(delay: number): void {
    this.nextSub?.unsubscribe();
    this.nextSub = this.scheduler.schedule(() => {
      this.nextSub = undefined;
      this.attempt();
    }, Math.max(0, delay));
  }

  /**
   * LE-4/LE-5: the jittered retry period, but no later than the instant the observed lease of
   * another holder expires (measured from this candidate's own observation).
   */
  private acquireWait(): number {
    const jittered = this.cfg.retryPeriodMs * (1 + this.cfg.jitterFactor * this.cfg.random());
    const holder = this.elector.observedHolder();
    if (holder === undefined || holder === this.identity) return jittered;
    const expiry = this.elector.observedExpiry();
    const now = this.scheduler.now();
    if (expiry > now) return Math.min(jittered, expiry - now);
    // The lease expired while the last attempt (which still saw it valid) was in flight: go now.
    return expiry > this.lastAttemptStart ? 0 : jittered;
  }

  /** LE-7: empties the holder (when this candidate holds the lease), bounded by renewDeadline. */
  private release(): void {
    this.elector
      .release()
      .pipe(timeout({ first: this.cfg.renewDeadlineMs, with: () => of(false), scheduler: this.scheduler }))
      .subscribe();
  }

  // ---- output -----------------------------------------------------------------------------------

  private emit(): void {
    const state: LeaderElectionState = { leading: this.phase === 'leading', leader: this.elector.observedHolder() };
    if (this.last !== undefined && this.last.leading === state.leading && this.last.leader === state.leader) return;
    this.last = state;
    this.out.next(state);
  }

  /** LE-6: hands each newly observed non-empty holder to `onNewLeader`. */
  private reportLeader(): void {
    const holder = this.elector.observedHolder();
    if (holder !== undefined && holder !== this.reported) {
      this.reported = holder;
      const cb = this.cfg.onNewLeader;
      if (cb !== undefined) this.later(() => cb(holder));
    }
  }

  /** Calls `fn` asynchronously on the scheduler (callbacks never run inside a transition). */
  private later(fn: (() => void) | undefined): void {
    if (fn !== undefined) this.scheduler.schedule(() => fn());
  }
}
