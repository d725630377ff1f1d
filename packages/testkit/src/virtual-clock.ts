import type { TestScheduler } from 'rxjs/testing';

interface SchedulerInternals {
  readonly hotObservables: { setup(): void }[];
}

interface VirtualActionLike {
  readonly delay: number;
  readonly state: unknown;
  execute(state: unknown, delay: number): unknown;
  unsubscribe(): void;
}

/** Every pending microtask (Promise continuation, `process.nextTick`) has run when this resolves. */
export function drainMicrotasks(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Steps a `TestScheduler` in run mode one timer at a time, letting every pending microtask run
 * after each one: the engine under `virtualTime`'s `flush`, `eventually` and `converged`.
 */
export class VirtualClock {
  private readonly actions: VirtualActionLike[];

  constructor(readonly scheduler: TestScheduler) {
    this.actions = scheduler.actions as unknown as VirtualActionLike[];
  }

  /** The current virtual time (ms). */
  get now(): number {
    return this.scheduler.frame;
  }

  /** Subscribes the hot marble Observables created so far (as `TestScheduler.flush` does first). */
  setUpHotObservables(): void {
    const hot = (this.scheduler as unknown as SchedulerInternals).hotObservables;
    while (hot.length > 0) hot.shift()?.setup();
  }

  /**
   * Runs the next timer if it is due by `untilFrame` (after letting microtasks run, which may
   * schedule an earlier one), then lets microtasks run again. False when no timer is due by then.
   * A timer's error unsubscribes every other timer and is thrown.
   */
  async step(untilFrame: number): Promise<boolean> {
    let action = this.actions[0];
    if (action === undefined) {
      await drainMicrotasks();
      action = this.actions[0];
    }
    if (action === undefined || action.delay > untilFrame) return false;
    this.actions.shift();
    this.scheduler.frame = action.delay;
    const error = action.execute(action.state, action.delay);
    if (error) {
      this.clear();
      throw error;
    }
    await drainMicrotasks();
    return true;
  }

  /** Runs every timer due by `untilFrame`, in order; then time stands at `untilFrame` (when finite). */
  async runUntil(untilFrame: number): Promise<void> {
    this.setUpHotObservables();
    await drainMicrotasks();
    while (await this.step(untilFrame));
    this.moveTo(untilFrame);
  }

  /** Moves time forward to `frame` without running anything (never backwards). */
  moveTo(frame: number): void {
    if (Number.isFinite(frame) && frame > this.scheduler.frame) this.scheduler.frame = frame;
  }

  /** The due times (ms) of the timers still scheduled, earliest first. */
  pendingDueTimes(): number[] {
    return this.actions.map((a) => a.delay);
  }

  /** Unsubscribes every scheduled timer. */
  clear(): void {
    for (let a = this.actions.shift(); a !== undefined; a = this.actions.shift()) a.unsubscribe();
  }
}
