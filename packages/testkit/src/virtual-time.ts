import { deepStrictEqual } from 'node:assert/strict';
import type { Observable } from 'rxjs';
import { dateTimestampProvider } from 'rxjs/internal/scheduler/dateTimestampProvider';
import { immediateProvider } from 'rxjs/internal/scheduler/immediateProvider';
import { intervalProvider } from 'rxjs/internal/scheduler/intervalProvider';
import { performanceTimestampProvider } from 'rxjs/internal/scheduler/performanceTimestampProvider';
import { timeoutProvider } from 'rxjs/internal/scheduler/timeoutProvider';
import { TestScheduler } from 'rxjs/testing';
import { type InProcessCluster, inProcessCluster, type InProcessClusterOptions } from './in-process-cluster.js';

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
}

interface SchedulerInternals {
  runMode: boolean;
  readonly hotObservables: { setup(): void }[];
  flushTests: { ready: boolean; actual: unknown; expected: unknown }[];
  createDelegates(): { immediate: unknown; interval: unknown; timeout: unknown };
}

interface VirtualActionLike {
  readonly delay: number;
  readonly state: unknown;
  execute(state: unknown, delay: number): unknown;
  unsubscribe(): void;
}

/** Every pending microtask (Promise continuation, `process.nextTick`) has run when this resolves. */
function drainMicrotasks(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
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
  immediateProvider.delegate = delegates.immediate as typeof immediateProvider.delegate;
  intervalProvider.delegate = delegates.interval as typeof intervalProvider.delegate;
  timeoutProvider.delegate = delegates.timeout as typeof timeoutProvider.delegate;

  let flushed = false;
  const actions = scheduler.actions as unknown as VirtualActionLike[];
  const run = async (untilFrame: number): Promise<void> => {
    const hot = internals.hotObservables;
    while (hot.length > 0) hot.shift()?.setup();
    await drainMicrotasks();
    for (;;) {
      let action = actions[0];
      if (action === undefined) {
        await drainMicrotasks();
        action = actions[0];
        if (action === undefined) break;
      }
      if (action.delay > untilFrame) break;
      actions.shift();
      scheduler.frame = action.delay;
      const error = action.execute(action.state, action.delay);
      if (error) {
        for (let a = actions.shift(); a !== undefined; a = actions.shift()) a.unsubscribe();
        throw error;
      }
      await drainMicrotasks();
    }
    if (Number.isFinite(untilFrame) && untilFrame > scheduler.frame) scheduler.frame = untilFrame;
  };
  const check = (): void => {
    internals.flushTests = internals.flushTests.filter((t) => {
      if (!t.ready) return true;
      scheduler.assertDeepEqual(t.actual, t.expected);
      return false;
    });
  };
  const cluster = inProcessCluster({ ...(options.cluster ?? {}), scheduler });
  const helpers: VirtualTimeHelpers = {
    scheduler,
    cluster,
    cold: (marbles, values, error) => scheduler.createColdObservable(marbles, values, error),
    hot: (marbles, values, error) => scheduler.createHotObservable(marbles, values, error),
    expectObservable: (observable, subscriptionMarbles) => scheduler.expectObservable(observable, subscriptionMarbles),
    time: (marbles) => scheduler.createTime(marbles),
    flush: async (untilFrame = maxFrames) => {
      flushed = true;
      await run(untilFrame);
      check();
    },
    advance: (ms) => run(scheduler.frame + ms),
    settle: drainMicrotasks,
  };
  try {
    await test(helpers);
    if (!flushed) await helpers.flush();
    else check();
  } finally {
    cluster.close();
    for (let a = actions.shift(); a !== undefined; a = actions.shift()) a.unsubscribe();
    TestScheduler.frameTimeFactor = previousFactor;
    internals.runMode = false;
    dateTimestampProvider.delegate = undefined;
    performanceTimestampProvider.delegate = undefined;
    immediateProvider.delegate = undefined;
    intervalProvider.delegate = undefined;
    timeoutProvider.delegate = undefined;
  }
}
