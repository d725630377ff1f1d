import { isObservable, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { QueueItem } from './key-queue.js';
import type { ReconcileResult } from './reconcile-result.js';
import { ReconcileTimeoutError } from './reconcile-timeout-error.js';
import type { Request } from './request.js';
import type { ReconcileReturn, Reconciler } from './reconciler.js';

/**
 * Where one reconcile is:
 *
 * ```
 * running ──deadline (CR-3)──▶ timedOut ──settles──▶ ended
 *    └──────────────settles, or end()────────────────▶ ended
 * ```
 *
 * - `running`: started and not finished.
 * - `timedOut`: its deadline passed and its signal is aborted. An Observable reconcile is
 *   unsubscribed and ends at once; a Promise keeps the key until it settles, and then counts as
 *   failed with the timeout error whatever it returned.
 * - `superseded`: a newer add of its key aborted its signal (`supersede` on). An Observable
 *   reconcile is unsubscribed and ends at once; a Promise keeps the key until it settles, and then
 *   counts as superseded whatever it returned.
 * - `dropped`: its key was dropped (`WorkQueueOptions.drop`, e.g. its cluster left): its signal is
 *   aborted with the drop's reason; an Observable reconcile is unsubscribed and ends at once, a
 *   Promise keeps the key until it settles, and then counts as aborted whatever it returned.
 * - `ended`: settled, or ended from outside (aborted or abandoned); anything it does later is ignored.
 */
export type ReconcileState = 'running' | 'timedOut' | 'superseded' | 'dropped' | 'ended';

/**
 * Called once when a reconcile settles: `failed` with `value` as the error, or not with `value`
 * as its return value (the last value of an Observable).
 */
export type OnSettled = (run: InFlightReconcile, failed: boolean, value: unknown, timedOut: boolean) => void;

/** Called when a Promise reconcile timed out and keeps running (its key held) until it settles. */
export type OnTimedOut = (run: InFlightReconcile) => void;

/**
 * One reconcile handed out by the work queue: calls the reconciler, follows whatever it returned
 * (Promise, Observable or plain value), enforces the deadline, and reports how it settled.
 */
export class InFlightReconcile {
  readonly controller = new AbortController();
  private state: ReconcileState = 'running';
  /** Set for an Observable reconcile only. */
  private subscription: Subscription | undefined;
  private deadline: Subscription | undefined;

  constructor(
    readonly item: QueueItem<Request>,
    readonly request: Request,
    /** 1 + the rate limiter's `numRequeues(key)` when the reconcile started. */
    readonly attempt: number,
    private readonly onSettled: OnSettled,
    private readonly onTimedOut: OnTimedOut = () => undefined,
  ) {}

  /** Calls `reconcile`; may settle before it returns. */
  start(reconcile: Reconciler, timeoutMs: number | undefined, scheduler: SchedulerLike): void {
    let ret: ReconcileReturn;
    try {
      ret = reconcile(this.request, this.controller.signal);
    } catch (error) {
      this.settle(true, error);
      return;
    }
    if (isObservable(ret)) {
      this.follow(ret as Observable<ReconcileResult | void | undefined>);
    } else if (isThenable(ret)) {
      ret.then(
        (v) => this.settle(false, v),
        (e: unknown) => this.settle(true, e),
      );
    } else {
      this.settle(false, ret);
      return;
    }
    if (timeoutMs !== undefined && this.state === 'running') {
      this.deadline = scheduler.schedule(() => this.timeOut(timeoutMs), timeoutMs);
    }
  }

  /**
   * Moves to `ended` and cancels the deadline. Returns the state it left, or undefined when it
   * had ended already.
   */
  end(): Exclude<ReconcileState, 'ended'> | undefined {
    const was = this.state;
    if (was === 'ended') return undefined;
    this.state = 'ended';
    this.deadline?.unsubscribe();
    return was;
  }

  /** Aborts the signal with `reason` and unsubscribes an Observable reconcile. Call after `end()`. */
  cancel(reason: unknown): void {
    this.controller.abort(reason);
    this.subscription?.unsubscribe();
  }

  /** Whether a newer add of the key superseded this reconcile. */
  get superseded(): boolean {
    return this.wasSuperseded;
  }

  private wasSuperseded = false;

  /**
   * running → superseded: aborts the signal with `reason`; an Observable reconcile is unsubscribed
   * and settles at once, a Promise when it settles. Returns false when it is not running.
   */
  supersede(reason: unknown): boolean {
    if (this.state !== 'running') return false;
    this.state = 'superseded';
    this.wasSuperseded = true;
    this.deadline?.unsubscribe();
    this.controller.abort(reason);
    if (this.subscription !== undefined) {
      this.subscription.unsubscribe();
      this.settle(true, reason);
    }
    return true;
  }

  /** Whether its key was dropped while it ran (see `drop`). */
  get dropped(): boolean {
    return this.wasDropped;
  }

  private wasDropped = false;

  /**
   * running | timedOut | superseded → dropped: aborts the signal with `reason` (unless aborted
   * already); an Observable reconcile is unsubscribed and settles at once, a Promise when it
   * settles. Returns false when it had ended.
   */
  drop(reason: unknown): boolean {
    if (this.state === 'ended' || this.state === 'dropped') return false;
    this.state = 'dropped';
    this.wasDropped = true;
    this.deadline?.unsubscribe();
    this.controller.abort(reason);
    if (this.subscription !== undefined) {
      this.subscription.unsubscribe();
      this.settle(true, reason);
    }
    return true;
  }

  private settle(failed: boolean, value: unknown): void {
    const was = this.end();
    if (was === undefined) return;
    if (was === 'dropped') this.onSettled(this, true, this.controller.signal.reason, false);
    else if (was === 'timedOut') this.onSettled(this, true, this.controller.signal.reason, true);
    else if (was === 'superseded') this.onSettled(this, true, this.controller.signal.reason, false);
    else this.onSettled(this, failed, value, false);
  }

  private follow(reconcile: Observable<ReconcileResult | void | undefined>): void {
    // Settle only after the reconcile's subscription is torn down (its finalizers ran), so the
    // next reconcile of the key never overlaps the previous one's cleanup.
    let last: ReconcileResult | void | undefined;
    let end: { failed: boolean; value: unknown } | undefined;
    const sub = reconcile.subscribe({
      next: (v) => {
        last = v;
      },
      error: (e: unknown) => {
        end = { failed: true, value: e };
      },
      complete: () => {
        end = { failed: false, value: last };
      },
    });
    this.subscription = sub;
    sub.add(() => {
      if (end !== undefined) this.settle(end.failed, end.value);
    });
  }

  private timeOut(ms: number): void {
    if (this.state !== 'running') return;
    this.state = 'timedOut';
    this.controller.abort(new ReconcileTimeoutError(ms));
    if (this.subscription !== undefined) {
      // An Observable reconcile stops when unsubscribed; a Promise keeps the key until it settles.
      this.subscription.unsubscribe();
      this.settle(true, this.controller.signal.reason);
    } else {
      this.onTimedOut(this);
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
