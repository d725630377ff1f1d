/** The typed errors of `virtualTime`'s outcome assertions (`eventually`, `converged`). */
import { RxkubeError, type ErrorLayer } from 'rxkube';
import { reportLines, type VirtualRunReport } from './outcome-report.js';

/**
 * `eventually(predicate)` ran virtual time for its whole budget and the predicate never held.
 * The message names the condition, the budget, the last state seen, the last check's failure,
 * the reconciles run meanwhile and the work still pending; the same facts are properties.
 */
export class EventuallyTimeoutError extends RxkubeError {
  static override readonly code: string = 'TESTING_EVENTUALLY_TIMEOUT';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'EventuallyTimeoutError';
  /** What was waited for (the `what` option, else `the predicate`). */
  readonly what: string;
  /** The budget (ms of virtual time). */
  readonly withinMs: number;
  /** The `state` option's value at the last check (`undefined` without that option). */
  readonly lastState: unknown;
  /** Why the last check failed: `returned false`, or the error it threw. */
  readonly lastFailure: string;
  /** What virtual time did meanwhile. */
  readonly report: VirtualRunReport;

  constructor(what: string, withinMs: number, lastState: unknown, lastFailure: string, report: VirtualRunReport, options?: ErrorOptions) {
    super(
      [
        `${what} did not hold within ${withinMs} ms of virtual time (ran ${report.startedAt} → ${report.endedAt} ms)`,
        ...(lastState === undefined ? [] : [`last state: ${stateText(lastState)}`]),
        `last check: ${lastFailure}`,
        ...reportLines(report),
      ].join('\n  '),
      options,
    );
    this.what = what;
    this.withinMs = withinMs;
    this.lastState = lastState;
    this.lastFailure = lastFailure;
    this.report = report;
  }
}

/**
 * `converged()` ran virtual time for its whole budget and the system never went quiet (a timer
 * was always due within the quiet window: a requeue loop, a retry that keeps failing, a
 * controller that keeps writing). The message names the budget, the reconciles run and the
 * pending timers.
 */
export class NotConvergedError extends RxkubeError {
  static override readonly code: string = 'TESTING_NOT_CONVERGED';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'NotConvergedError';
  /** The budget (ms of virtual time). */
  readonly withinMs: number;
  /** How long a quiet stretch had to be (ms). */
  readonly quietMs: number;
  /** What virtual time did meanwhile. */
  readonly report: VirtualRunReport;

  constructor(withinMs: number, quietMs: number, report: VirtualRunReport) {
    super(
      [
        `did not converge within ${withinMs} ms of virtual time (ran ${report.startedAt} → ${report.endedAt} ms): a timer was always due within ${quietMs} ms`,
        ...reportLines(report),
      ].join('\n  '),
    );
    this.withinMs = withinMs;
    this.quietMs = quietMs;
    this.report = report;
  }
}

const STATE_LIMIT = 2_000;

/** A state snapshot as JSON (cut at 2 000 characters), or its string form when it is not JSON. */
function stateText(state: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(state) ?? String(state);
  } catch {
    text = String(state);
  }
  return text.length > STATE_LIMIT ? `${text.slice(0, STATE_LIMIT)}… (${text.length} characters)` : text;
}
