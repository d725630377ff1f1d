import { ControllerBuildError } from './controller-errors.js';

/** Default of {@link ReadYourWritesOptions.timeoutMs}: 10 s. */
export const DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS = 10_000;
/** Default of {@link ReadYourWritesOptions.maxTrackedWrites}. */
export const DEFAULT_MAX_TRACKED_WRITES = 10_000;

/** Options of a controller's `readYourWrites` (docs/read-your-writes.md). Durations in ms. */
export interface ReadYourWritesOptions {
  /**
   * How long after a write the controller waits for its caches to show it (the keys that wait
   * are parked, holding no worker): a key still parked then is run, its reconcile fails with a
   * `ReadYourWritesTimeoutError` (requeued with the rate limiter), and the write is no longer
   * waited for. Default 10 000.
   */
  readonly timeoutMs?: number;
  /** At most this many writes not yet shown by the caches are tracked (the oldest are forgotten first). Default 10 000. */
  readonly maxTrackedWrites?: number;
}

/** The `readYourWrites` option checked, with its defaults; `undefined` when it is off (`false`). */
export function readYourWritesSettings(
  option: boolean | ReadYourWritesOptions | undefined,
): { readonly timeoutMs: number; readonly maxTrackedWrites: number } | undefined {
  if (option === false) return undefined;
  const o: ReadYourWritesOptions = option === undefined || option === true ? {} : option;
  if (o === null || typeof o !== 'object') throw new ControllerBuildError(`readYourWrites must be a boolean or options, got ${String(option)}`, { option: 'readYourWrites' });
  const timeoutMs = o.timeoutMs ?? DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS;
  const maxTrackedWrites = o.maxTrackedWrites ?? DEFAULT_MAX_TRACKED_WRITES;
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
    throw new ControllerBuildError(`readYourWrites.timeoutMs must be a number > 0, got ${String(timeoutMs)}`, { option: 'readYourWrites.timeoutMs' });
  }
  if (!Number.isInteger(maxTrackedWrites) || maxTrackedWrites < 1) {
    throw new ControllerBuildError(`readYourWrites.maxTrackedWrites must be an integer ≥ 1, got ${String(maxTrackedWrites)}`, { option: 'readYourWrites.maxTrackedWrites' });
  }
  return { timeoutMs, maxTrackedWrites };
}
