/** Counting the process's active resources (handles, requests, timers) for hygiene tests. */

/** `process.getActiveResourcesInfo()` as counts by kind (`TCPSocketWrap`, `Timeout`, ...). */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

/**
 * Kinds of which `b` has more than `a`, as `kind: a → b`. Fewer is fine: a timer or socket of an
 * earlier test may end while this one runs.
 */
export function diffResources(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): string[] {
  const out: string[] = [];
  for (const [k, n] of b) if (n > (a.get(k) ?? 0)) out.push(`${k}: ${a.get(k) ?? 0} → ${n}`);
  return out.sort();
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Waits (event-loop turns, up to a generous deadline) until no kind of active resource exceeds `baseline`,
 * and returns the remaining difference (empty when clean). Closing a socket or clearing a timer
 * takes a few turns; the deadline only bounds a test that would otherwise hang, it asserts nothing.
 */
export async function settleTo(baseline: ReadonlyMap<string, number>, deadlineMs = 5000): Promise<string[]> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    await tick();
    const diff = diffResources(baseline, activeResources());
    if (diff.length === 0 || Date.now() > end) return diff;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls `cond` each event-loop turn (bounded by a generous deadline); returns its last value. */
export async function eventually(cond: () => boolean, deadlineMs = 5000): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}
