/**
 * Retries `check` (assertions that throw until they hold) every 25 ms until it passes, and fails
 * with its last error once `timeoutMs` have passed: for tests against a live (embedded) API server,
 * where what a controller does shows up some time later.
 */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
