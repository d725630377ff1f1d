import type { Observable, Subscriber, Subscription } from 'rxjs';
import { defaultRateLimiter } from './default-rate-limiter.js';
import { InFlightReconcile } from './in-flight-reconcile.js';
import { KeyQueue, type QueueItem } from './key-queue.js';
import type { RateLimiter } from './rate-limiter.js';
import { readInput, type QueueAdd } from './read-input.js';
import { ReconcileAbortedError } from './reconcile-aborted-error.js';
import type { ReconcileOutcome, ReconcileResult } from './reconcile-result.js';
import { ParkedKeys } from './parked-keys.js';
import { parseRequestKey, type Request, type WorkQueueInput } from './request.js';
import { RunningReconciles } from './running-reconciles.js';
import { onShutdownTrigger } from './shutdown-trigger.js';
import { isTerminalError } from './terminal-error.js';
import { WakeTimer } from './wake-timer.js';
import type { Reconciler } from './reconciler.js';
import type { DropRequests, ResolvedWorkQueueOptions } from './work-queue-options.js';

/**
 * Where a work queue is:
 *
 * ```
 * running ──beginShutdown──▶ draining (drain) ─┐
 *    └─────beginShutdown──▶ shuttingDown ──────┴──finish (idle, or grace period over)──▶ stopped
 * any phase ──stop (unsubscribed)──▶ stopped
 * any phase ──halt (the `halt` signal aborts)──▶ stopped   (running reconciles aborted and reported)
 * ```
 *
 * - `running`: takes input, hands out due keys, requeues.
 * - `draining`: takes no input and requeues nothing, but still hands out keys that are due;
 *   finishes when nothing runs and nothing is ready.
 * - `shuttingDown`: takes no input, hands out nothing; finishes when nothing runs.
 * - `stopped`: the output ended or was unsubscribed; a reconcile settling now is ignored.
 */
export type QueuePhase = 'running' | 'draining' | 'shuttingDown' | 'stopped';

/** How a settled reconcile is reported, and the delay it was requeued with (if it was). */
type Verdict =
  | { readonly kind: 'success'; readonly result: ReconcileResult }
  | { readonly kind: 'requeue' | 'requeue_after'; readonly result: ReconcileResult; readonly requeueAfter: number }
  | { readonly kind: 'error'; readonly error: unknown; readonly requeueAfter: number }
  | { readonly kind: 'terminal_error'; readonly error: unknown }
  | { readonly kind: 'superseded'; readonly error: unknown }
  | { readonly kind: 'aborted'; readonly error: unknown };

/**
 * The work queue's state machine for one subscription of `workQueue()`. Internal: the public
 * surface is `workQueue()`. Its phase changes only in `beginShutdown`, `finish` and `stop`; all
 * timers (wake-ups, deadlines, grace period, metrics) run on `options.scheduler`.
 */
export class WorkQueueRun {
  private phase: QueuePhase = 'running';
  /** Why the queue left `running` when the input errored or was invalid: the output errors with it. */
  private stopError: { readonly error: unknown } | undefined;
  private readonly limiter: RateLimiter;
  private readonly queue: KeyQueue<Request>;
  private readonly running: RunningReconciles;
  private readonly wakeTimer: WakeTimer;
  private inputSub: Subscription | undefined;
  private triggerSub: Subscription | undefined;
  private haltSub: Subscription | undefined;
  private dropSub: Subscription | undefined;
  private graceTimer: Subscription | undefined;
  /** Re-entrancy guard of `pump`: a reconcile may settle, and pump again, while it is started. */
  private pumping = false;
  /** Keys `park` holds back, with what re-adds each (see {@link WorkQueueOptions.park}). */
  private readonly parked = new ParkedKeys();

  constructor(
    private readonly source: Observable<WorkQueueInput>,
    private readonly reconcile: Reconciler,
    private readonly o: ResolvedWorkQueueOptions,
    private readonly out: Subscriber<ReconcileOutcome>,
  ) {
    this.limiter = o.rateLimiter ?? defaultRateLimiter();
    this.queue = new KeyQueue<Request>(() => o.scheduler.now(), o.metrics);
    this.running = new RunningReconciles(o.scheduler, o.metrics);
    this.wakeTimer = new WakeTimer(o.scheduler, () => this.onWake());
  }

  /** Listens for the shutdown trigger, then takes input. */
  start(): void {
    if (this.o.halt !== undefined) {
      const halt = this.o.halt;
      this.haltSub = onShutdownTrigger(halt, () => this.halt(halt.reason));
    }
    if (this.phase !== 'running') return;
    this.dropSub = this.o.drop?.subscribe({ next: (order) => this.onDrop(order), error: () => undefined });
    const trigger = this.o.shutdown;
    if (trigger !== undefined) this.triggerSub = onShutdownTrigger(trigger, () => this.beginShutdown());
    if (this.phase !== 'running') return;
    this.inputSub = this.source.subscribe({
      next: (input) => this.onInput(input),
      error: (error: unknown) => this.beginShutdown({ error }),
      complete: () => this.beginShutdown(),
    });
    if (this.phase !== 'running') this.inputSub.unsubscribe(); // the input ended while subscribing
  }

  // ---- phase transitions: the only code that changes `phase` ----------------------------------

  /** running → draining | shuttingDown: the input ended, the trigger fired, or an input was invalid. */
  private beginShutdown(error?: { readonly error: unknown }): void {
    if (this.phase !== 'running') return;
    this.phase = this.o.drain ? 'draining' : 'shuttingDown';
    this.stopError = error;
    this.stopListening();
    this.queue.shutDown();
    this.parked.clear();
    this.armWake();
    if (Number.isFinite(this.o.shutdownGracePeriodMs)) {
      this.graceTimer = this.o.scheduler.schedule(() => this.onGraceExpired(), this.o.shutdownGracePeriodMs);
    }
    this.pump();
  }

  /** draining | shuttingDown → stopped: nothing is left to wait for; the output ends. */
  private finish(): void {
    if (this.phase !== 'draining' && this.phase !== 'shuttingDown') return;
    this.phase = 'stopped';
    this.haltSub?.unsubscribe(); // the halt is listened to while draining too
    this.dropSub?.unsubscribe();
    if (this.stopError !== undefined) this.out.error(this.stopError.error);
    else this.out.complete();
  }

  /**
   * any → stopped at once, without grace (fencing): takes nothing more in, hands nothing more out,
   * aborts every running reconcile with `reason`, reports each as `aborted`, and ends the output.
   */
  private halt(reason: unknown): void {
    if (this.phase === 'stopped') return;
    if (this.phase === 'running') this.queue.shutDown();
    this.phase = 'shuttingDown';
    this.stopListening();
    this.parked.clear();
    this.wakeTimer.cancel();
    this.graceTimer?.unsubscribe();
    this.abortRunning(reason);
    this.finish();
  }

  /**
   * any → stopped: the subscriber unsubscribed (or the output ended). Releases everything at once;
   * reconciles still running are aborted (`ReconcileAbortedError('unsubscribed')`).
   */
  stop(): void {
    this.phase = 'stopped';
    this.stopListening();
    this.haltSub?.unsubscribe();
    this.dropSub?.unsubscribe();
    this.parked.clear();
    this.wakeTimer.cancel();
    this.graceTimer?.unsubscribe();
    for (const run of this.running) {
      run.end();
      run.cancel(new ReconcileAbortedError('unsubscribed'));
    }
    this.running.clear();
  }

  // ---- input and hand-out (WQ-1..WQ-3) ---------------------------------------------------------

  private stopListening(): void {
    this.inputSub?.unsubscribe();
    this.triggerSub?.unsubscribe();
  }

  private onInput(input: WorkQueueInput): void {
    if (this.phase !== 'running') return;
    let add: QueueAdd;
    try {
      add = readInput(input, this.queue, this.limiter);
    } catch (error) {
      this.beginShutdown({ error });
      return;
    }
    if (this.queue.add(add.key, add.value, add.after, add.priority)) this.armWake();
    if (this.o.supersede && (add.after === undefined || add.after <= 0)) {
      // A newer event for a key being reconciled: abort that reconcile; the key (held by the
      // queue until it settles) runs again right after, never concurrently.
      this.running.byKey(add.key)?.supersede(new ReconcileAbortedError('superseded'));
    }
    this.pump();
  }

  /** Drops the matching keys and aborts the matching running reconciles (see `WorkQueueOptions.drop`). */
  private onDrop(order: DropRequests): void {
    if (this.phase === 'stopped') return;
    const matches = (key: string, value: Request | undefined): boolean => {
      try {
        return order.matches(value ?? parseRequestKey(key)) === true;
      } catch {
        return false; // a throwing matcher drops nothing
      }
    };
    for (const key of this.queue.removeWhere(matches)) this.limiter.forget(key);
    for (const key of this.parked.dropWhere((key) => matches(key, undefined))) this.limiter.forget(key);
    for (const run of this.running.snapshot()) if (matches(run.item.key, run.request)) run.drop(order.reason);
    this.armWake();
    this.pump();
  }

  /** Aims the wake-up timer at the earliest waiting key (none once the queue stops running). */
  private armWake(): void {
    this.wakeTimer.aim(this.phase === 'running' ? this.queue.nextReadyAt() : undefined);
  }

  private onWake(): void {
    this.queue.promote();
    this.armWake();
    this.pump();
  }

  private handsOut(): boolean {
    return this.phase === 'running' || this.phase === 'draining';
  }

  /** Starts due keys while fewer than `concurrency` run; then finishes a stopping queue that is idle. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.running.slotsInUse < this.o.concurrency && this.handsOut()) {
        const item = this.queue.get();
        if (item === undefined) break;
        if (!this.parkIfHeld(item)) this.startReconcile(item);
      }
    } finally {
      this.pumping = false;
    }
    if (this.phase === 'draining' || this.phase === 'shuttingDown') this.finishIfIdle();
  }

  private finishIfIdle(): void {
    if (this.running.size === 0 && (this.phase === 'shuttingDown' || this.queue.len === 0)) this.finish();
  }

  /**
   * `park` (if given) holds `item` back: it is marked done without an outcome and added again,
   * due at once, when `park`'s Observable fires. A key already parked stays so (this add is
   * dropped: the parked one comes back).
   */
  private parkIfHeld(item: QueueItem<Request>): boolean {
    const park = this.o.park;
    if (park === undefined) return false;
    if (this.parked.has(item.key)) {
      this.queue.done(item);
      return true;
    }
    const request = item.value ?? parseRequestKey(item.key);
    let until$: Observable<unknown> | undefined;
    try {
      until$ = park(request, item.key);
    } catch {
      return false; // a failing park must not stop the key: it runs
    }
    if (until$ === undefined) return false;
    const { key, priority } = item;
    const parked = this.parked.park(key, until$, () => {
      if (this.phase !== 'running') return;
      if (this.queue.add(key, request, undefined, priority)) this.armWake();
      this.pump();
    });
    if (parked) this.queue.done(item);
    return parked;
  }

  private startReconcile(item: QueueItem<Request>): void {
    const request = item.value ?? parseRequestKey(item.key);
    const run = new InFlightReconcile(item, request, this.limiter.numRequeues(item.key) + 1, this.onSettled, this.onTimedOut);
    this.running.add(run);
    run.start(this.reconcile, this.o.reconcileTimeoutMs, this.o.scheduler);
  }

  /**
   * A Promise reconcile timed out but keeps running: its worker slot is given back (its key stays
   * held until it settles, so never two reconciles of one key at once). At most `concurrency`
   * reconciles are let go at a time; beyond that a timed-out reconcile keeps its slot.
   */
  private readonly onTimedOut = (run: InFlightReconcile): void => {
    if (this.phase === 'stopped' || this.running.lettingGo >= this.o.concurrency) return;
    this.running.releaseSlot(run);
    this.pump();
  };

  // ---- outcomes (CR-1) -------------------------------------------------------------------------

  private readonly onSettled = (run: InFlightReconcile, failed: boolean, value: unknown, timedOut: boolean): void => {
    if (this.phase === 'stopped' || !this.running.delete(run)) return;
    const { item } = run;
    const duration = this.now() - item.startedAt;
    const verdict: Verdict = run.dropped
      ? this.judgeDropped(item, value)
      : run.superseded
      ? { kind: 'superseded', error: value }
      : failed
        ? this.judgeFailure(item, value)
        : this.judgeResult(item, value);
    this.queue.done(item);
    this.armWake();
    this.out.next({
      key: item.key,
      request: run.request,
      kind: verdict.kind,
      attempt: run.attempt,
      startedAt: item.startedAt,
      duration,
      timedOut,
      ...('result' in verdict ? { result: verdict.result } : {}),
      ...('error' in verdict ? { error: verdict.error } : {}),
      ...('requeueAfter' in verdict && verdict.requeueAfter !== undefined && this.phase === 'running'
        ? { requeueAfter: verdict.requeueAfter }
        : {}),
    });
    this.pump();
  };

  /** A dropped key's reconcile is reported `aborted`, never requeued; its failure count is forgotten. */
  private judgeDropped(item: QueueItem<Request>, reason: unknown): Verdict {
    this.limiter.forget(item.key);
    return { kind: 'aborted', error: reason };
  }

  /** An error requeues with the rate limiter; a `TerminalError` is only reported. */
  private judgeFailure(item: QueueItem<Request>, error: unknown): Verdict {
    if (isTerminalError(error)) return { kind: 'terminal_error', error };
    const requeueAfter = this.limiter.when(item.key); // consulted even while stopping (RL-6)
    this.requeue(item.key, requeueAfter, item.priority);
    return { kind: 'error', error, requeueAfter };
  }

  /** `{ requeueAfter }` forgets and requeues after it, `{ requeue: true }` requeues rate-limited, else forget. */
  private judgeResult(item: QueueItem<Request>, value: unknown): Verdict {
    const key = item.key;
    const result = normalizeResult(value);
    const priority = result.priority ?? item.priority;
    if (result.requeueAfter !== undefined && result.requeueAfter > 0) {
      this.limiter.forget(key);
      this.requeue(key, result.requeueAfter, priority);
      return { kind: 'requeue_after', result, requeueAfter: result.requeueAfter };
    }
    if (result.requeue === true) {
      const requeueAfter = this.limiter.when(key);
      this.requeue(key, requeueAfter, priority);
      return { kind: 'requeue', result, requeueAfter };
    }
    this.limiter.forget(key);
    return { kind: 'success', result };
  }

  private requeue(key: string, afterMs: number, priority: number): void {
    if (this.phase === 'running') this.queue.add(key, undefined, afterMs, priority);
  }

  // ---- grace period ----------------------------------------------------------------------------

  /** Aborts the reconciles still running, reports each as `aborted`, and finishes. */
  private onGraceExpired(): void {
    this.graceTimer = undefined;
    if (this.phase !== 'draining' && this.phase !== 'shuttingDown') return;
    this.abortRunning(new ReconcileAbortedError('grace-period-expired'));
    this.finish();
  }

  /** Aborts every running reconcile's signal with `reason` and reports each as `aborted`. */
  private abortRunning(reason: unknown): void {
    for (const run of this.running.snapshot()) {
      const was = run.end();
      if (was === undefined) continue;
      this.running.delete(run);
      run.cancel(reason);
      this.out.next({
        key: run.item.key,
        request: run.request,
        kind: 'aborted',
        error: reason,
        attempt: run.attempt,
        startedAt: run.item.startedAt,
        duration: this.now() - run.item.startedAt,
        timedOut: was === 'timedOut',
      });
    }
  }

  private now(): number {
    return this.o.scheduler.now();
  }
}

function normalizeResult(value: unknown): ReconcileResult {
  if (value === null || typeof value !== 'object') return {};
  return value as ReconcileResult;
}
