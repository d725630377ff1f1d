import type { SchedulerLike } from 'rxjs';

/** Exponential backoff settings (docs/semantics.md BO-1, BO-2). All durations in milliseconds. */
export interface BackoffOptions {
  /** First delay before jitter. Default 800. */
  readonly initialMs?: number;
  /** Upper bound of the un-jittered delay. Default 30 000. */
  readonly maxMs?: number;
  /** Growth factor per step. Default 2. */
  readonly factor?: number;
  /** Jitter: the delay `d` becomes `d + random() * jitter * d`. Default 1 (so `[d, 2d)`). */
  readonly jitter?: number;
  /**
   * The delay returns to `initialMs` when more than this long passed since the PREVIOUS delay
   * request ("no backoff for 2 minutes means the server is healthy"; client-go ≤ 1.35
   * `ExponentialBackoffManager`). Default 120 000.
   */
  readonly resetMs?: number;
}

/** One backoff decision. */
export interface BackoffStep {
  /** Jittered delay to wait, in milliseconds. */
  readonly delayMs: number;
  /** 1 for the first delay after a reset, 2 for the next, … */
  readonly attempt: number;
}

/** A stateful backoff: each `next()` call is one delay request. */
export interface Backoff {
  next(): BackoffStep;
}

/** Resolved backoff defaults (client-go reflector values). */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
  resetMs: 120_000,
};

/**
 * Creates the reflector's backoff. The clock is `scheduler.now()`, the jitter source `random`
 * (values in `[0, 1)`), so the sequence is deterministic under a virtual-time scheduler.
 *
 * Sequence before jitter: 800, 1600, 3200, 6400, 12800, 25600, then 30000 forever.
 * Reset semantics: client-go ≤ 1.35 — reset when the previous delay request is more than
 * `resetMs` ago (the construction time counts as the first "request").
 */
export function createBackoff(
  options: BackoffOptions = {},
  scheduler: SchedulerLike,
  random: () => number = Math.random,
): Backoff {
  const o = { ...DEFAULT_BACKOFF, ...options };
  let current = o.initialMs;
  let attempt = 0;
  let lastRequest = scheduler.now();
  return {
    next(): BackoffStep {
      const now = scheduler.now();
      if (now - lastRequest > o.resetMs) {
        current = o.initialMs;
        attempt = 0;
      }
      lastRequest = now;
      const base = current;
      current = Math.min(current * o.factor, o.maxMs);
      attempt += 1;
      const delayMs = o.jitter > 0 ? base + random() * o.jitter * base : base;
      return { delayMs, attempt };
    },
  };
}
