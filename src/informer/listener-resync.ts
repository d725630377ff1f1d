import { determineResyncPeriod } from './resync-period.js';

/**
 * One listener's resync timing, kept by its informer (`InformerRun`), which alone changes it:
 * the period the listener asked for, the period it gets (SI-7), when its next resync is due, and
 * whether resync notifications currently go to it (SI-9).
 */
export class ListenerResync {
  private effectiveMs = 0;
  private nextAt = 0;
  private dueNow = true;

  /** `requestedMs`: the period asked for, after the 1 s clamp (SI-8). */
  constructor(readonly requestedMs: number) {}

  /** The effective period (SI-7), 0 for none. */
  get periodMs(): number {
    return this.effectiveMs;
  }

  /** Whether resync notifications currently go to this listener: true until the first check, then whether the last check found it due (SI-9). */
  get due(): boolean {
    return this.dueNow;
  }

  /** SI-7: takes the effective period against the informer's check period `checkMs`. */
  fitTo(checkMs: number): void {
    this.effectiveMs = determineResyncPeriod(this.requestedMs, checkMs);
  }

  /** The first resync is one period after `now`. */
  startAt(now: number): void {
    this.nextAt = now + this.effectiveMs;
  }

  /** SI-9, at a check tick at `now`: whether a resync is due; when it is, the next one is one period later. */
  check(now: number): boolean {
    const due = this.effectiveMs !== 0 && now >= this.nextAt;
    this.dueNow = due;
    if (due) this.nextAt = now + this.effectiveMs;
    return due;
  }
}
