/** client-go's `minimumResyncPeriod`: a requested resync period above 0 is raised to at least this (ms). */
export const MIN_RESYNC_PERIOD_MS = 1000;

/**
 * SI-7: the effective resync period of a subscriber that asked for `desiredMs` on an informer
 * whose resync timer ticks every `checkMs`: 0 when either is 0 (no resync), `checkMs` when the
 * subscriber asked for less, else `desiredMs`.
 */
export function determineResyncPeriod(desiredMs: number, checkMs: number): number {
  if (desiredMs === 0 || checkMs === 0) return 0;
  return desiredMs < checkMs ? checkMs : desiredMs;
}

/** A requested period as client-go stores it: 0 stays 0, anything else is at least {@link MIN_RESYNC_PERIOD_MS}. */
export function clampResyncPeriod(requestedMs: number): number {
  return requestedMs > 0 && requestedMs < MIN_RESYNC_PERIOD_MS ? MIN_RESYNC_PERIOD_MS : requestedMs;
}
