import type { SchedulerLike } from 'rxjs';

/** Exponential backoff settings (docs/semantics.md BO-1, BO-2). All durations in milliseconds. */
export interface BackoffOptions {
  /** First delay before jitter. Default 800 (the general backoff; see the per-cause defaults). */
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
   * `ExponentialBackoffManager`). Default 120 000. Independent of this, the reflector resets its
   * backoffs once a watch has stayed healthy for `watchHealthyMs`, and the connection backoff after
   * a successful list (unless `sharedBackoff` is set).
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
  /** Starts over: the next delay is `initialMs` again (attempt 1). */
  reset(): void;
  /** Delays handed out since the last reset (explicit, or by `resetMs`). */
  readonly attempts: number;
}

/**
 * Resolved defaults of the general backoff (client-go's reflector values): relists after errors
 * other than the two classes below, expired resourceVersions, very short watches, 4xx answers.
 */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
  resetMs: 120_000,
};

/**
 * Resolved defaults of the connection backoff: the server did not answer at all (connection
 * refused or reset, unreachable, a request or watch that went silent). Short and capped low, so
 * a restarted API server is found again within about 2–3 s of it listening: 100, 200, 400, 800,
 * 1600, then 2000 forever, each jittered into `[d, 1.5d)`.
 */
export const DEFAULT_CONNECTION_BACKOFF: Required<BackoffOptions> = {
  initialMs: 100,
  maxMs: 2_000,
  factor: 2,
  jitter: 0.5,
  resetMs: 120_000,
};

/**
 * Resolved defaults of the server-error backoff: the server answered 429 or 5xx (a 429's
 * Retry-After is still honoured as a lower bound). 250, 500, 1000, 2000, then 4000 forever, each
 * jittered into `[d, 1.5d)`.
 */
export const DEFAULT_SERVER_ERROR_BACKOFF: Required<BackoffOptions> = {
  initialMs: 250,
  maxMs: 4_000,
  factor: 2,
  jitter: 0.5,
  resetMs: 120_000,
};

/**
 * Creates a backoff. The clock is `scheduler.now()`, the jitter source `random` (values in
 * `[0, 1)`), so the sequence is deterministic under a virtual-time scheduler. `defaults` fills
 * the fields `options` leaves out (default {@link DEFAULT_BACKOFF}).
 *
 * Sequence before jitter with the general defaults: 800, 1600, 3200, 6400, 12800, 25600, then
 * 30000 forever. Time-based reset: client-go ≤ 1.35 — reset when the previous delay request is
 * more than `resetMs` ago (the construction time counts as the first "request"); `reset()` starts
 * over at once.
 */
export function createBackoff(
  options: BackoffOptions = {},
  scheduler: SchedulerLike,
  random: () => number = Math.random,
  defaults: Required<BackoffOptions> = DEFAULT_BACKOFF,
): Backoff {
  const o = { ...defaults, ...options };
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
    reset(): void {
      current = o.initialMs;
      attempt = 0;
    },
    get attempts(): number {
      return scheduler.now() - lastRequest > o.resetMs ? 0 : attempt;
    },
  };
}
