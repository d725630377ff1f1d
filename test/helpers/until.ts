/**
 * Polls `f` every `pollMs` (25 ms unless told) until it returns something other than
 * undefined/false, and resolves with it; fails after `timeoutMs` naming `what`. For tests against
 * a live (embedded) API server.
 */
export async function until<T>(what: string, f: () => T | undefined | false, timeoutMs = 15_000, pollMs = 25): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
