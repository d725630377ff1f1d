import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { isConflict } from './api-error.js';
import { delayOn } from './retry-policy.js';

/** Options of {@link retryOnConflict}. Durations in ms. */
export interface RetryOnConflictOptions {
  /** Attempts in all, the first included; default 5 (client-go's `DefaultRetry`). */
  readonly steps?: number;
  /** Wait before the first retry; default 10. */
  readonly delayMs?: number;
  /** Growth of the wait per retry; default 1 (client-go's `DefaultRetry`; its `DefaultBackoff` is 5). */
  readonly factor?: number;
  /** Random extra wait, as a fraction of each wait (`[d, d·(1+jitter))`); default 0.1. */
  readonly jitter?: number;
  /** Which failures are retried; default 409 Conflict (`isConflict`). */
  readonly retriable?: (error: unknown) => boolean;
  /** Timers; default `asyncScheduler` (virtual time in tests). */
  readonly scheduler?: SchedulerLike;
  /** Stops retrying: a wait in progress ends at once with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Jitter source in [0, 1); default `Math.random`. */
  readonly random?: () => number;
}

/**
 * Runs `update` until it succeeds, retrying it after a 409 Conflict (client-go's
 * `retry.RetryOnConflict`): each attempt should read the object afresh (from the server or a cache
 * that has caught up), change it, and write it with the resourceVersion it read, so a conflict
 * means "someone else wrote first; decide again on their result". After `steps` attempts the
 * last conflict is thrown; any other error is thrown at once.
 *
 * @example
 * ```ts
 * await retryOnConflict(async () => {
 *   const cm = await configMaps.get('settings');
 *   await configMaps.replace({ ...cm, data: { ...cm.data, mode: 'fast' } });
 * });
 * ```
 */
export async function retryOnConflict<T>(update: (attempt: number) => Promise<T>, options: RetryOnConflictOptions = {}): Promise<T> {
  const steps = Math.max(1, options.steps ?? 5);
  const factor = options.factor ?? 1;
  const jitter = options.jitter ?? 0.1;
  const retriable = options.retriable ?? isConflict;
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  let delay = options.delayMs ?? 10;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await update(attempt);
    } catch (error) {
      if (attempt >= steps || !retriable(error)) throw error;
    }
    await delayOn(scheduler, jitter > 0 ? delay + delay * jitter * random() : delay, options.signal);
    delay *= factor;
  }
}
