import { drainMicrotasks, type VirtualClock } from '../virtual-clock.js';
import { EventuallyTimeoutError, NotConvergedError } from './outcome-errors.js';
import type { OutcomeLog } from './outcome-log.js';
import { errorText, runReport, type VirtualRunReport } from './outcome-report.js';

/**
 * A condition on the outcome: holds when it returns `true` or returns nothing without throwing
 * (an assertion such as `expect(x).toEqual(y)`); fails when it returns `false` or throws.
 */
export type OutcomeCondition = () => boolean | void | Promise<boolean | void>;

/** Default budget of `eventually` (ms of virtual time). */
export const DEFAULT_EVENTUALLY_WITHIN_MS = 10_000;
/** Default budget of `converged` (ms of virtual time). */
export const DEFAULT_CONVERGED_WITHIN_MS = 60_000;
/** Default quiet window of `converged` (ms): no timer due this soon counts as converged. */
export const DEFAULT_QUIET_MS = 1_000;

/** Options of `eventually`. */
export interface EventuallyOptions {
  /** How much virtual time it may run (ms) before failing; default 10 000. */
  readonly withinMs?: number;
  /** What is waited for, for the failure message (e.g. `'the copy dst/a has data v=2'`); default `the condition`. */
  readonly what?: string;
  /** A snapshot of the state the condition looks at (e.g. the object), shown as JSON on failure. */
  readonly state?: () => unknown;
}

/** Options of `converged`. */
export interface ConvergedOptions {
  /** How much virtual time it may run (ms) before failing; default 60 000. */
  readonly withinMs?: number;
  /**
   * Converged means: no Promise continuation left and no timer due within this many ms of now;
   * default 1 000. Timers further out (watch timeouts of minutes, a `requeueAfter` of an hour)
   * are left pending and listed in the result.
   */
  readonly quietMs?: number;
}

/** What `eventually` and `converged` drive: the clock, the started controllers, the cluster's watches. */
export interface OutcomeDriver {
  readonly clock: VirtualClock;
  readonly log: OutcomeLog;
  readonly openWatches: () => number;
}

function checkBudget(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`${name} must be a finite number of ms ≥ 0, got ${value}`);
  return value;
}

/**
 * Runs virtual time, one timer at a time, until `condition` holds (checked first, then after
 * every timer and the Promise continuations it released), for at most `withinMs`.
 * @returns what virtual time did meanwhile.
 * @throws EventuallyTimeoutError when the condition still fails at the end of the budget.
 */
export async function eventually(driver: OutcomeDriver, condition: OutcomeCondition, options: EventuallyOptions = {}): Promise<VirtualRunReport> {
  const { clock, log } = driver;
  const withinMs = checkBudget('withinMs', options.withinMs ?? DEFAULT_EVENTUALLY_WITHIN_MS);
  const from = { startedAt: clock.now, logIndex: log.all.length };
  const deadline = clock.now + withinMs;
  const report = (): VirtualRunReport => runReport(log, from, clock.now, clock.pendingDueTimes(), driver.openWatches());
  clock.setUpHotObservables();
  await drainMicrotasks();
  let lastFailure = 'not checked';
  let lastError: unknown;
  const holds = async (): Promise<boolean> => {
    try {
      if ((await condition()) !== false) return true;
      lastFailure = 'returned false';
      lastError = undefined;
    } catch (e) {
      lastFailure = `threw ${errorText(e)}`;
      lastError = e;
    }
    return false;
  };
  for (;;) {
    if (await holds()) return report();
    if (!(await clock.step(deadline))) break;
  }
  clock.moveTo(deadline);
  if (await holds()) return report();
  const state = options.state === undefined ? undefined : snapshot(options.state);
  throw new EventuallyTimeoutError(options.what ?? 'the condition', withinMs, state, lastFailure, report(), lastError === undefined ? undefined : { cause: lastError });
}

/**
 * Runs virtual time until nothing is left to do soon: no Promise continuation pending and no
 * timer due within `quietMs` (work queues empty, no retry or near requeue pending, every watch
 * event delivered), for at most `withinMs`. Time stays where the last work ran.
 * @returns what virtual time did meanwhile, with the timers left (all due later than `quietMs`).
 * @throws NotConvergedError when work was still due at the end of the budget.
 */
export async function converged(driver: OutcomeDriver, options: ConvergedOptions = {}): Promise<VirtualRunReport> {
  const { clock, log } = driver;
  const withinMs = checkBudget('withinMs', options.withinMs ?? DEFAULT_CONVERGED_WITHIN_MS);
  const quietMs = checkBudget('quietMs', options.quietMs ?? DEFAULT_QUIET_MS);
  const from = { startedAt: clock.now, logIndex: log.all.length };
  const deadline = clock.now + withinMs;
  const report = (): VirtualRunReport => runReport(log, from, clock.now, clock.pendingDueTimes(), driver.openWatches());
  clock.setUpHotObservables();
  for (;;) {
    await drainMicrotasks();
    const next = clock.pendingDueTimes()[0];
    if (next === undefined || next > clock.now + quietMs) return report();
    if (!(await clock.step(deadline))) break;
  }
  clock.moveTo(deadline);
  throw new NotConvergedError(withinMs, quietMs, report());
}

function snapshot(state: () => unknown): unknown {
  try {
    return state();
  } catch (e) {
    return `(state threw ${errorText(e)})`;
  }
}
