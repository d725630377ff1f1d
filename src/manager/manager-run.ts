import type { SchedulerLike, Subscription } from 'rxjs';
import type { RunnableLike } from '../api/runnable.js';
import { toRunnable } from '../api/runnable.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Logger } from '../logging/logger.js';
import { classifyRunnable, type RunnableGroupName, warmupOf } from './classify-runnable.js';
import type { HttpServerRunnable } from './http-server.js';
import { type CacheMonitor, describeUnsynced } from './cache-monitor.js';
import { Candidacy, type CandidacyOptions } from './manager-candidacy.js';
import {
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerCacheSyncTimeoutError,
  StopEngagedError,
  UncaughtError,
} from './manager-errors.js';
import { currentReconcile } from '../controller/reconcile-scope.js';
import { catchEscapedErrors, type EscapeOrigin } from './escaped-errors.js';
import { RunnableGroup } from './runnable-group.js';
import { shutdownDeadline } from './shutdown-deadline.js';

/**
 * Phases of a manager, in order (CR-13, CR-14):
 * - `new`: runnables queue in their groups, checks may be added;
 * - `startingHttpServers`: HTTP servers (metrics, health probes) start, until listening;
 * - `startingWebhooks`: webhook servers start, until listening;
 * - `startingCaches`: caches start; the run waits until all synced;
 * - `startingOthers`: runnables with `needLeaderElection: false` start;
 * - `warmingUp`: the warm-up group starts (the `warmup` of leader-election runnables that offer
 *   one, e.g. controllers built with `warmup: true`); the run does not wait for it;
 * - `electing`: campaigning; the leader-election runnables wait;
 * - `running`: elected (at once without leader election), the leader-election runnables run;
 * - `stopping`: the stop procedure is engaged: groups stop in order within the grace period;
 * - `stopped`: the procedure is done; `start()` settles.
 *
 * A stop request (the signal aborts, a runnable fails, leadership is lost) is an input, not a
 * phase: it cuts the start sequence short wherever it is, and the run then goes to `stopping`.
 */
export type ManagerPhase =
  | 'new'
  | 'startingHttpServers'
  | 'startingWebhooks'
  | 'startingCaches'
  | 'startingOthers'
  | 'warmingUp'
  | 'electing'
  | 'running'
  | 'stopping'
  | 'stopped';

const TRANSITIONS: Readonly<Record<ManagerPhase, readonly ManagerPhase[]>> = {
  new: ['startingHttpServers'],
  startingHttpServers: ['startingWebhooks', 'stopping'],
  startingWebhooks: ['startingCaches', 'stopping'],
  startingCaches: ['startingOthers', 'stopping'],
  startingOthers: ['warmingUp', 'stopping'],
  warmingUp: ['electing', 'stopping'],
  electing: ['running', 'stopping'],
  running: ['stopping'],
  stopping: ['stopped'],
  stopped: [],
};

/** Groups in stop order (CR-14); each stops after the previous one ended (or the deadline passed). */
const STOP_ORDER: readonly RunnableGroupName[] = ['others', 'leaderElection', 'warmup', 'caches', 'webhooks', 'httpServers'];

/** What a {@link ManagerRun} needs from the manager's options. */
export interface ManagerRunOptions {
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  /** 0 = don't wait for runnables to stop; < 0 = wait forever. */
  readonly gracefulShutdownTimeoutMs: number;
  /** The manager's own HTTP servers, added to the HTTP-server group at start. */
  readonly probeServers: readonly HttpServerRunnable[];
  /** How to campaign; absent = no leader election. */
  readonly election: CandidacyOptions | undefined;
  /** Fail `start()` when the caches have not synced after this long; ≤ 0 waits forever. */
  readonly cacheSyncTimeoutMs: number;
  /** What the caches' informers are doing (for the sync timeout's message and the logs). */
  readonly caches: CacheMonitor;
  /** Called once the stop procedure is done (e.g. to detach metrics observers). */
  readonly onStopped?: () => void;
  /**
   * Catch errors escaping asynchronously (uncaught exceptions, unhandled rejections) while the
   * manager runs: log them with the reconcile they came from and stop gracefully.
   */
  readonly catchUncaughtErrors: boolean;
}

/**
 * The manager's state machine: its runnable groups, the start sequence, the stop request and the
 * stop procedure. Internal: the public surface is `manager()`. A manager runs once; the phase
 * changes in {@link enter} only.
 */
export class ManagerRun {
  private current: ManagerPhase = 'new';
  private readonly groups: Record<RunnableGroupName, RunnableGroup>;
  private readonly candidacy: Candidacy | undefined;
  private readonly recorders: EventRecorder[] = [];
  /** The first error reported before the stop procedure; it is what `start()` rejects with. */
  private failure: { readonly error: unknown } | undefined;
  /** Leadership was lost: the stop procedure skips the graceful wait (CR-14). */
  private leadershipLost = false;
  /** Aborts when leadership is lost (also while stopping): the fence of the manager's event recorders. */
  private readonly lostLeadership = new AbortController();
  private stopRequested = false;
  private startedAt = 0;
  private syncTimer: Subscription | undefined;
  /** Stops catching escaped errors (set while running with `catchUncaughtErrors`). */
  private releaseEscaped: (() => void) | undefined;
  private readonly stopRequest: Promise<void>;
  private resolveStopRequest: () => void = () => undefined;
  /** Resolves once elected (at once without leader election). */
  readonly elected: Promise<void>;
  private resolveElected: () => void = () => undefined;

  constructor(private readonly o: ManagerRunOptions) {
    this.stopRequest = new Promise<void>((resolve) => (this.resolveStopRequest = resolve));
    this.elected = new Promise<void>((resolve) => (this.resolveElected = resolve));
    const group = (name: RunnableGroupName) => new RunnableGroup(name, (err) => this.fail(err), o.logger);
    this.groups = {
      httpServers: group('httpServers'),
      webhooks: group('webhooks'),
      caches: group('caches'),
      others: group('others'),
      warmup: group('warmup'),
      leaderElection: group('leaderElection'),
    };
    this.candidacy =
      o.election &&
      new Candidacy(o.election, {
        failed: (err) => this.fail(err),
        elected: () => this.onElected(),
        lost: (cause) => this.onLost(cause),
      });
  }

  get phase(): ManagerPhase {
    return this.current;
  }

  /** Aborts, with the {@link LeaderElectionLostError}, once leadership is lost; never without leader election. */
  get leadershipFence(): AbortSignal {
    return this.lostLeadership.signal;
  }

  /** True from the start of the stop procedure on. */
  get stopEngaged(): boolean {
    return this.current === 'stopping' || this.current === 'stopped';
  }

  /** Every cache (also those added later) synced; backs the `cache-sync` readiness check. */
  get cachesSynced(): boolean {
    return this.groups.caches.isReady;
  }

  /**
   * One line per informer (or cache runnable without informer detail) that has not synced, with
   * its server and last error; empty when every cache synced.
   */
  cacheSyncProblems(): string[] {
    if (this.groups.caches.isReady) return [];
    const informers = this.o.caches.unsynced();
    const lines = informers.map(describeUnsynced);
    const covered = new Set(informers.map((u) => u.cache));
    for (const name of this.groups.caches.unreadyNames()) {
      if (!covered.has(name)) lines.push(`cache ${name} has not synced`);
    }
    if (lines.length === 0 && (this.current === 'new' || this.current === 'startingHttpServers' || this.current === 'startingWebhooks')) lines.push('caches have not started yet');
    return lines;
  }

  /** Adds a runnable to its group (CR-12); once the group started it starts at once. */
  add(runnable: RunnableLike): void {
    if (this.stopEngaged) throw new StopEngagedError();
    const r = toRunnable(runnable);
    const warmup = warmupOf(r);
    // Warm-up first: when both groups already started, `start` then finds the warm run to take over.
    if (warmup !== undefined) this.groups.warmup.add(warmup);
    this.groups[classifyRunnable(r)].add(r);
  }

  /** Flushed, then shut down at the end of the stop procedure. */
  addRecorder(recorder: EventRecorder): void {
    this.recorders.push(recorder);
  }

  /** Runs the start sequence, waits for a stop request, runs the stop procedure. */
  start(signal: AbortSignal | undefined): Promise<void> {
    if (this.current !== 'new') return Promise.reject(new ManagerAlreadyStartedError());
    this.startedAt = this.o.scheduler.now();
    this.o.logger.info('Starting manager', {
      leaderElection: this.candidacy === undefined ? false : this.candidacy.lease,
      cacheSyncTimeoutMs: this.o.cacheSyncTimeoutMs,
    });
    this.enter('startingHttpServers');
    if (this.o.catchUncaughtErrors) this.releaseEscaped = catchEscapedErrors((err, origin) => this.onEscaped(err, origin));
    return this.run(signal);
  }

  // ---- transitions ------------------------------------------------------------------------------

  /** The one place the phase changes. */
  private enter(next: ManagerPhase): void {
    if (!TRANSITIONS[this.current].includes(next)) {
      throw new Error(`manager: no transition from ${this.current} to ${next}`);
    }
    this.current = next;
  }

  /** The stop request: cuts the start sequence short; the run then stops. */
  private requestStop(): void {
    this.stopRequested = true;
    this.resolveStopRequest();
  }

  /** A runnable, the elector or the election failed: remember the first error and stop. */
  private fail(err: unknown): void {
    if (this.stopEngaged) {
      this.o.logger.error('error received after stop sequence was engaged', { err });
      return;
    }
    this.failure ??= { error: err };
    this.requestStop();
  }

  /**
   * An error escaped asynchronously (a throw in a timer, an unhandled rejection): log it with the
   * reconcile it came from (the async context it was thrown in), then stop gracefully — the state
   * of whatever threw is unknown, so the manager does not go on as if nothing happened, but other
   * reconciles may finish and events are flushed within the grace period.
   */
  private onEscaped(err: unknown, origin: EscapeOrigin): void {
    const scope = currentReconcile();
    const fields = scope === undefined ? {} : { controller: scope.controller, object: scope.key, reconcileID: scope.reconcileId };
    this.o.logger.error(scope === undefined ? 'uncaught error, stopping the manager' : 'error escaped a reconcile, stopping the manager', { err, origin, ...fields });
    this.fail(new UncaughtError(origin, scope, { cause: err }));
  }

  // ---- start sequence (CR-13) -------------------------------------------------------------------

  private async run(signal: AbortSignal | undefined): Promise<void> {
    const onAbort = (): void => this.requestStop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.requestStop();
    try {
      await this.startSequence();
      await this.stopRequest;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const stopError = await this.stopProcedure();
    throwOutcome(this.failure, stopError);
  }

  /** HTTP servers → webhooks → caches until synced → others → warm-up → electing; a stop request ends it early. */
  private async startSequence(): Promise<void> {
    for (const server of this.o.probeServers) this.groups.httpServers.add(server);
    await this.untilStopRequested(this.groups.httpServers.start());
    if (this.stopRequested) return;
    this.enter('startingWebhooks');
    await this.untilStopRequested(this.groups.webhooks.start());
    if (this.stopRequested) return;
    this.enter('startingCaches');
    const cachesStartedAt = this.o.scheduler.now();
    if (this.o.cacheSyncTimeoutMs > 0) {
      this.syncTimer = this.o.scheduler.schedule(() => this.cacheSyncTimedOut(), this.o.cacheSyncTimeoutMs);
    }
    await this.untilStopRequested(this.groups.caches.start());
    this.syncTimer?.unsubscribe();
    if (this.stopRequested) return;
    this.o.logger.info('caches synced', { ...this.o.caches.summary(), durationMs: this.o.scheduler.now() - cachesStartedAt });
    this.enter('startingOthers');
    await this.untilStopRequested(this.groups.others.start());
    if (this.stopRequested) return;
    this.enter('warmingUp');
    await this.untilStopRequested(this.groups.warmup.start());
    if (this.stopRequested) return;
    this.enter('electing');
    if (this.candidacy === undefined) this.lead();
    else {
      this.o.logger.info('attempting to acquire leader lease', { lease: this.candidacy.lease });
      this.candidacy.campaign();
    }
  }

  /** The caches did not sync in time: fail with what each unsynced informer last reported. */
  private cacheSyncTimedOut(): void {
    if (this.current !== 'startingCaches' || this.stopRequested) return;
    const problems = this.cacheSyncProblems();
    const firstError = this.o.caches.unsynced().find((u) => u.lastError !== undefined)?.lastError;
    const err = new ManagerCacheSyncTimeoutError(this.o.cacheSyncTimeoutMs, problems, firstError === undefined ? undefined : { cause: firstError });
    this.o.logger.error('caches did not sync in time, stopping', { err, timeoutMs: this.o.cacheSyncTimeoutMs });
    this.fail(err);
  }

  private async untilStopRequested(started: Promise<void>): Promise<void> {
    await Promise.race([started, this.stopRequest]);
  }

  /** Electing → running: the leader-election runnables start. */
  private lead(): void {
    this.enter('running');
    void this.groups.leaderElection.start();
    this.resolveElected();
  }

  private onElected(): void {
    if (this.current !== 'electing' || this.stopRequested) return;
    this.o.logger.info('became leader', { lease: this.candidacy?.lease });
    this.lead();
  }

  /**
   * CR-14: losing leadership stops everything without grace and rejects with "leader election
   * lost". Fencing: the leader-election group's signal aborts at once, with that error as its
   * reason, so controllers abort their running reconciles and refuse their writes before the stop
   * procedure even begins.
   */
  private onLost(cause: unknown): void {
    if (this.current === 'stopped') return;
    const err = new LeaderElectionLostError(cause === undefined ? undefined : { cause });
    this.lostLeadership.abort(err);
    if (this.stopEngaged) {
      // Lost while stopping gracefully: the controllers may still be finishing reconciles.
      this.o.logger.error('leader election lost while stopping: fencing the leader-election runnables', { lease: this.candidacy?.lease });
      this.groups.leaderElection.abort(err);
      return;
    }
    this.leadershipLost = true;
    this.o.logger.error('leader election lost', { lease: this.candidacy?.lease });
    this.groups.leaderElection.abort(err);
    this.fail(err);
  }

  // ---- stop procedure (CR-14) -------------------------------------------------------------------

  /**
   * Stops the groups in {@link STOP_ORDER} within one grace period, writes pending events, then
   * cancels the election and shuts the recorders down. Returns the timeout error, if any.
   */
  private async stopProcedure(): Promise<GracefulShutdownTimeoutError | undefined> {
    this.enter('stopping');
    const graceMs = this.leadershipLost ? 0 : this.o.gracefulShutdownTimeoutMs;
    this.o.logger.info('stopping and waiting for runnables', { gracefulShutdownTimeoutMs: graceMs });
    const deadline = shutdownDeadline(graceMs, this.o.scheduler);
    let allEnded = true;
    for (const name of STOP_ORDER) {
      if (!(await this.groups[name].stop(deadline.expired))) allEnded = false;
    }
    // Events recorded by the stopped runnables are written before the recorders shut down,
    // within what is left of the grace period.
    await Promise.race([Promise.all(this.recorders.map((r) => r.flush())), deadline.expired]);
    deadline.cancel();
    this.candidacy?.cancel();
    for (const r of this.recorders) r.shutdown();
    this.syncTimer?.unsubscribe();
    this.enter('stopped');
    this.releaseEscaped?.();
    this.o.onStopped?.();
    const timedOut = !allEnded && graceMs > 0;
    this.o.logger.info('manager stopped', {
      uptimeMs: this.o.scheduler.now() - this.startedAt,
      ...(this.failure === undefined ? {} : { err: this.failure.error }),
      ...(timedOut ? { gracefulShutdownTimedOut: true } : {}),
    });
    return timedOut ? new GracefulShutdownTimeoutError(graceMs) : undefined;
  }
}

/** What `start()` settles with: the first error, the timeout error, both, or nothing. */
function throwOutcome(failure: { readonly error: unknown } | undefined, stopError: Error | undefined): void {
  if (failure !== undefined && stopError !== undefined) {
    throw new AggregateError([failure.error, stopError], `${messageOf(failure.error)}, ${messageOf(stopError)}`);
  }
  if (failure !== undefined) throw failure.error;
  if (stopError !== undefined) throw stopError;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
