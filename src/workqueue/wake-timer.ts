import type { SchedulerLike, Subscription } from 'rxjs';
import { MAX_TIMER_DELAY_MS } from './work-queue-options.js';

/**
 * The one timer of a work queue that wakes it when its earliest waiting key is due. Aiming it at
 * the time it already aims at keeps the scheduled action.
 */
export class WakeTimer {
  /** Scheduler time it fires at; `Infinity` when idle. */
  private at = Infinity;
  private action: Subscription | undefined;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly wake: () => void,
  ) {}

  /** Fires `wake` at scheduler time `at`, instead of any earlier aim; undefined disarms it. */
  aim(at: number | undefined): void {
    const target = at ?? Infinity;
    if (target === this.at) return;
    this.action?.unsubscribe();
    this.action = undefined;
    this.at = target;
    if (Number.isFinite(target)) {
      // Node clamps timer delays above 2³¹−1 ms to 1 ms: wake earlier and re-aim instead.
      const delayMs = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, target - this.scheduler.now()));
      this.action = this.scheduler.schedule(this.fire, delayMs);
    }
  }

  cancel(): void {
    this.action?.unsubscribe();
    this.action = undefined;
    this.at = Infinity;
  }

  private readonly fire = (): void => {
    this.action = undefined;
    this.at = Infinity;
    this.wake();
  };
}
