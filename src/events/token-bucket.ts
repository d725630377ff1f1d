import type { SchedulerLike } from 'rxjs';

/**
 * A token bucket on `scheduler`'s clock: holds up to `burst` tokens, starts full, refills at
 * `qps` tokens per second. `tryTake()` takes one token if available.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly scheduler: SchedulerLike,
  ) {
    if (!(qps >= 0) || !(burst >= 1)) throw new RangeError('token bucket needs qps >= 0 and burst >= 1');
    this.tokens = burst;
    this.last = scheduler.now();
  }

  /** Takes one token and returns true, or returns false when the bucket is empty. */
  tryTake(): boolean {
    const now = this.scheduler.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}
