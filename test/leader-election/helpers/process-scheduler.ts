import { defer, NEVER, type Observable, observeOn, type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import type { LeaseApi } from '../../../src/leader-election/lease-api.js';

/**
 * A simulated process's view of time, on top of a shared virtual-time `base` scheduler:
 * its clock is `offset + rate × base.now()` (skew), its timers fire after `delay / rate` base ms,
 * it can be paused (work due during the pause runs, in due order, when the pause ends) and killed
 * (nothing of it runs again).
 */
export class ProcessScheduler implements SchedulerLike {
  private pausedUntil = Number.NEGATIVE_INFINITY;
  private killed = false;

  constructor(
    readonly base: SchedulerLike,
    readonly offset = 0,
    readonly rate = 1,
  ) {}

  now(): number {
    return this.offset + this.rate * this.base.now();
  }

  /** Freezes the process for `ms` of base time from now. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.base.now() + ms);
  }

  /** True while paused. */
  get paused(): boolean {
    return this.base.now() < this.pausedUntil;
  }

  /** Base time the current pause ends. */
  get resumesAt(): number {
    return this.pausedUntil;
  }

  kill(): void {
    this.killed = true;
  }

  get dead(): boolean {
    return this.killed;
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return new ProcessAction<T>(this, work).schedule(state, delay);
  }
}

class ProcessAction<T> extends Subscription implements SchedulerAction<T> {
  private inner: Subscription | undefined;

  constructor(
    private readonly process: ProcessScheduler,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
  ) {
    super();
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.inner?.unsubscribe();
    this.inner = this.process.base.schedule(() => this.fire(state), Math.max(0, delay) / this.process.rate);
    return this;
  }

  private fire(state: T | undefined): void {
    if (this.closed || this.process.dead) return;
    if (this.process.paused) {
      this.inner = this.process.base.schedule(() => this.fire(state), this.process.resumesAt - this.process.base.now());
      return;
    }
    this.work.call(this, state);
  }

  override unsubscribe(): void {
    this.inner?.unsubscribe();
    super.unsubscribe();
  }
}

/** A LeaseApi as seen from inside `process`: nothing is sent once it is dead; answers wait out pauses. */
export function processLeaseApi(api: LeaseApi, process: ProcessScheduler): LeaseApi {
  const wrap = <T>(call: () => Observable<T>): Observable<T> =>
    defer(() => (process.dead ? NEVER : call())).pipe(observeOn(process));
  return {
    get: (ref) => wrap(() => api.get(ref)),
    create: (lease) => wrap(() => api.create(lease)),
    update: (lease) => wrap(() => api.update(lease)),
  };
}
