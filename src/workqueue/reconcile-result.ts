import type { Request } from './request.js';

/**
 * What a successful reconcile returns (controller-runtime's `reconcile.Result`). Returning nothing
 * is the same as `{}`: done, forget the failure count.
 * - `requeueAfter` (ms, > 0): forget the failure count and run the key again after this delay.
 * - `requeue: true` (without `requeueAfter`): run again after the rate limiter's delay.
 * - `priority`: replaces the key's priority for the requeue (PQ-1); unset keeps the old one.
 */
export interface ReconcileResult {
  readonly requeue?: boolean;
  readonly requeueAfter?: number;
  readonly priority?: number;
}

/**
 * How a reconcile ended, named like controller-runtime's `reconcile_total{result}` label plus:
 * `terminal_error` (a {@link TerminalError}, not requeued), `aborted` (still running when the
 * queue stopped, or when its key was dropped; its signal was aborted and nothing was requeued) and `superseded` (with
 * `supersede` on: a newer add of its key aborted it; the key runs again at once, and the rate
 * limiter is not consulted).
 */
export type ReconcileOutcomeKind = 'success' | 'requeue' | 'requeue_after' | 'error' | 'terminal_error' | 'aborted' | 'superseded';

/** One finished (or abandoned) reconcile, as emitted by the `workQueue` operator. */
export interface ReconcileOutcome {
  /** The queue key (`"namespace/name"` or `"name"`). */
  readonly key: string;
  readonly request: Request;
  readonly kind: ReconcileOutcomeKind;
  /** The reconcile's result, for the non-error kinds. */
  readonly result?: ReconcileResult;
  /** The error, for `error`, `terminal_error`, `aborted` and `superseded`. */
  readonly error?: unknown;
  /** 1 + the rate limiter's `numRequeues(key)` when the reconcile started. */
  readonly attempt: number;
  /** Scheduler time (ms) when the reconcile started. */
  readonly startedAt: number;
  /** How long it ran (ms, scheduler time). */
  readonly duration: number;
  /** When this outcome requeued the key: the delay (ms) it asked for. Unset when not requeued. */
  readonly requeueAfter?: number;
  /** True when the reconcile hit the queue's `reconcileTimeout` (CR-3). */
  readonly timedOut: boolean;
}
