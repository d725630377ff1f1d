import { deepStrictEqual } from 'node:assert/strict';
import type { Observable } from 'rxjs';
import { dateTimestampProvider } from 'rxjs/internal/scheduler/dateTimestampProvider';
import { immediateProvider } from 'rxjs/internal/scheduler/immediateProvider';
import { intervalProvider } from 'rxjs/internal/scheduler/intervalProvider';
import { performanceTimestampProvider } from 'rxjs/internal/scheduler/performanceTimestampProvider';
import type { TimerHandle } from 'rxjs/internal/scheduler/timerHandle';
import { timeoutProvider } from 'rxjs/internal/scheduler/timeoutProvider';
import { Immediate } from 'rxjs/internal/util/Immediate';
import { TestScheduler } from 'rxjs/testing';
import type { Controller } from 'rxkube';
import { type InProcessCluster, inProcessCluster, type InProcessClusterOptions } from './in-process-cluster.js';
import { converged, eventually, type ConvergedOptions, type EventuallyOptions, type OutcomeCondition, type OutcomeDriver } from './outcome/outcome-assertions.js';
import { OutcomeLog, type StartedController } from './outcome/outcome-log.js';
import type { VirtualRunReport } from './outcome/outcome-report.js';
import { routeTimerClears } from './timer-routing.js';
import { drainMicrotasks, VirtualClock } from './virtual-clock.js';

/** Options of {@link virtualTime}. */
export interface VirtualTimeOptions {
  /**
   * Where virtual time stops (ms): `flush()` runs every timer due up to here. Informers keep timers
   * (watch timeouts) for ever, so time needs an end. Default 600 000 (10 minutes).
   */
  readonly maxFrames?: number;
  /** Compares actual and expected marbles; default `node:assert`'s `deepStrictEqual`. Pass your test framework's. */
  readonly assertDeepEqual?: (actual: unknown, expected: unknown) => void;
  /** Options of the in-process cluster (its scheduler is the virtual one). */
  readonly cluster?: Omit<InProcessClusterOptions, 'scheduler'>;
}

/** What a {@link virtualTime} test gets. */
export interface VirtualTimeHelpers {
  /** The virtual clock (a `TestScheduler` in run mode: one frame is one ms, `10ms` in marbles). */
  readonly scheduler: TestScheduler;
  /** An embedded API server in process, its client and informers on the virtual clock. */
  readonly cluster: InProcessCluster;
  /** A cold marble Observable. */
  cold<T = string>(marbles: string, values?: Record<string, T>, error?: unknown): Observable<T>;
  /** A hot marble Observable. */
  hot<T = string>(marbles: string, values?: Record<string, T>, error?: unknown): Observable<T>;
  /** Records `observable` from frame 0 (or per `subscriptionMarbles`) to compare once time has run. */
  expectObservable<T>(observable: Observable<T>, subscriptionMarbles?: string | null): {
    toBe(marbles: string, values?: Record<string, unknown>, error?: unknown): void;
    toEqual(other: Observable<unknown>): void;
  };
  /** The frame count of a time-progression marble, e.g. `time('---|')` is 3. */
  time(marbles: string): number;
  /**
   * Runs virtual time: every timer due up to `untilFrame` (default `maxFrames`), in order, and
   * after each one every pending Promise continuation (microtasks), so `await`s in reconciles and
   * client calls finish in the frame they were started in. Then checks the `expectObservable`s.
   */
  flush(untilFrame?: number): Promise<void>;
  /** Runs virtual time `ms` forward (as `flush(now + ms)`, without checking expectations). */
  advance(ms: number): Promise<void>;
  /** Lets pending Promise continuations run, without moving time. */
  settle(): Promise<void>;
  /**
   * Starts `controller` (subscribes its `run()`) and records its reconcile outcomes, which
   * {@link eventually} and {@link converged} report; it is stopped when the test ends. For tests
   * that assert the outcome rather than the exact marble of reconciles.
   */
  start(controller: Controller): StartedController;
  /**
   * Runs virtual time, timer by timer, until `condition` holds (returns `true`, or returns
   * without throwing: an `expect(…)` works), at most `withinMs` (default 10 s of virtual time).
   * Asserts the outcome ("eventually the copy exists with this data") without spelling out every
   * reconcile the controller's own writes and watches cause.
   * @throws EventuallyTimeoutError naming the condition, the last state (`state` option), the last
   * check's failure, the reconciles run (controllers of {@link start}) and the pending work.
   */
  eventually(condition: OutcomeCondition, options?: EventuallyOptions): Promise<VirtualRunReport>;
  /**
   * Runs virtual time until nothing is due within `quietMs` (default 1 s): queues drained, no
   * retry or near requeue pending, watch events delivered, Promises settled; at most `withinMs`
   * (default 60 s). Returns the reconciles run and the timers left (due later).
   * @throws NotConvergedError naming the reconciles run and the timers still due.
   */
  converged(options?: ConvergedOptions): Promise<VirtualRunReport>;
}

type TimerFn = (handler: () => void, timeout?: number) => TimerHandle;
type ClearFn = (handle: TimerHandle) => void;

interface SchedulerInternals {
  runMode: boolean;
  flushTests: { ready: boolean; actual: unknown; expected: unknown }[];
  createDelegates(): {
    immediate: { setImmediate: (handler: () => void) => TimerHandle; clearImmediate: ClearFn };
    interval: { setInterval: TimerFn; clearInterval: ClearFn };
    timeout: { setTimeout: TimerFn; clearTimeout: ClearFn };
  };
}

/**
 * Runs `test` under a virtual clock that also runs Promises: a `TestScheduler` in run mode whose
 * `flush()` is asynchronous and lets every pending microtask run after each timer, so code that
 * mixes RxJS timers with `async`/`await` (a controller whose reconcile is an ordinary `async`
 * function calling a client) runs in virtual time, to the frame. Together with the in-process
 * cluster (`helpers.cluster`: an embedded API server reached without HTTP, its watches on the
 * virtual clock), an unchanged production reconciler is marble-tested.
 *
 * While `test` runs, RxJS's own timers (`asyncScheduler`, `timer()`, `delay()` without a
 * scheduler, `Date.now` as RxJS reads it) run on the virtual clock too, as in
 * `TestScheduler.run`. Global `setTimeout` and real I/O do not: keep them out of the code under
 * test (rxjs timers and the cluster's client only). After `test`, time is flushed (if `test` did
 * not), expectations are checked and the cluster's watches are ended.
 *
 * ```ts
 * await virtualTime(async ({ cluster, scheduler, expectObservable, flush }) => {
 *   const ctl = myController({ client: cluster.client, informers: cluster.informers(), scheduler });
 *   scheduler.schedule(() => cluster.create(configMap('a')), 10); // a write at frame 10
 *   expectObservable(ctl.run().pipe(map((o) => o.kind)), '^ 1s !').toBe('10ms s', { s: 'success' });
 *   await flush();
 * }, { assertDeepEqual: (a, e) => expect(a).toEqual(e) });
 * ```
 *
 * Or assert the outcome, not the exact sequence of reconciles (a controller's own writes and
 * watches cause reconciles that are correct but tedious to spell out): `start` the controller,
 * then `eventually` (time runs until a condition holds, within a budget) and `converged` (time
 * runs until nothing is due soon); both fail with a report of the last state, the reconciles run
 * and the pending work.
 *
 * ```ts
 * await virtualTime(async ({ cluster, scheduler, start, eventually, converged }) => {
 *   start(myController({ client: cluster.client, informers: cluster.informers(), scheduler }));
 *   cluster.create(configMap('a'));
 *   const copy = () => cluster.get('v1', 'ConfigMap', 'a-copy', 'default') as K8s.ConfigMap | undefined;
 *   await eventually(() => expect(copy()?.data).toEqual({ v: '1' }), { withinMs: 1_000 });
 *   const { reconciles } = await converged();
 * });
 * ```
 */
export async function virtualTime(test: (helpers: VirtualTimeHelpers) => Promise<void> | void, options: VirtualTimeOptions = {}): Promise<void> {
  const maxFrames = options.maxFrames ?? 600_000;
  const scheduler = new TestScheduler(options.assertDeepEqual ?? ((actual, expected) => deepStrictEqual(actual, expected)));
  const internals = scheduler as unknown as SchedulerInternals;
  const previousFactor = TestScheduler.frameTimeFactor;
  TestScheduler.frameTimeFactor = 1;
  scheduler.maxFrames = maxFrames;
  internals.runMode = true;
  const delegates = internals.createDelegates();
  dateTimestampProvider.delegate = scheduler;
  performanceTimestampProvider.delegate = scheduler;
  // A clear of a handle set before virtual time began goes to the clock that set it (timer-routing.ts).
  const immediate = routeTimerClears({ set: delegates.immediate.setImmediate, clear: delegates.immediate.clearImmediate }, (h) => Immediate.clearImmediate(h as number));
  const interval = routeTimerClears({ set: delegates.interval.setInterval, clear: delegates.interval.clearInterval }, (h) => clearInterval(h as Parameters<typeof clearInterval>[0]));
  const timeout = routeTimerClears({ set: delegates.timeout.setTimeout, clear: delegates.timeout.clearTimeout }, (h) => clearTimeout(h as Parameters<typeof clearTimeout>[0]));
  immediateProvider.delegate = { setImmediate: immediate.set, clearImmediate: immediate.clear };
  intervalProvider.delegate = { setInterval: interval.set, clearInterval: interval.clear };
  timeoutProvider.delegate = { setTimeout: timeout.set, clearTimeout: timeout.clear };

  let flushed = false;
  let outcomeStyle = false;
  const clock = new VirtualClock(scheduler);
  const log = new OutcomeLog(() => scheduler.frame);
  const check = (): void => {
    internals.flushTests = internals.flushTests.filter((t) => {
      if (!t.ready) return true;
      scheduler.assertDeepEqual(t.actual, t.expected);
      return false;
    });
  };
  const cluster = inProcessCluster({ ...(options.cluster ?? {}), scheduler });
  const driver: OutcomeDriver = { clock, log, openWatches: () => cluster.openWatches() };
  const helpers: VirtualTimeHelpers = {
    scheduler,
    cluster,
    cold: (marbles, values, error) => scheduler.createColdObservable(marbles, values, error),
    hot: (marbles, values, error) => scheduler.createHotObservable(marbles, values, error),
    expectObservable: (observable, subscriptionMarbles) => scheduler.expectObservable(observable, subscriptionMarbles),
    time: (marbles) => scheduler.createTime(marbles),
    flush: async (untilFrame = maxFrames) => {
      flushed = true;
      await clock.runUntil(untilFrame);
      check();
    },
    advance: (ms) => clock.runUntil(scheduler.frame + ms),
    settle: drainMicrotasks,
    start: (controller) => log.start(controller),
    eventually: (condition, eventuallyOptions) => {
      outcomeStyle = true;
      return eventually(driver, condition, eventuallyOptions);
    },
    converged: (convergedOptions) => {
      outcomeStyle = true;
      return converged(driver, convergedOptions);
    },
  };
  try {
    await test(helpers);
    // A test that asserted outcomes (eventually / converged) and set up no marble expectation is
    // done where it stopped; otherwise time runs to the end and the expectations are checked.
    if (!flushed && !(outcomeStyle && internals.flushTests.length === 0)) await helpers.flush();
    else check();
  } finally {
    log.stopAll();
    cluster.close();
    clock.clear();
    TestScheduler.frameTimeFactor = previousFactor;
    internals.runMode = false;
    dateTimestampProvider.delegate = undefined;
    performanceTimestampProvider.delegate = undefined;
    immediateProvider.delegate = undefined;
    intervalProvider.delegate = undefined;
    timeoutProvider.delegate = undefined;
  }
}
