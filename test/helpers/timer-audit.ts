/**
 * Opt-in (RXKUBE_TIMER_AUDIT=1): reports, after each test file, the real-time intervals it
 * started and left running (RxJS's async scheduler runs every delayed action on `setInterval`),
 * with where each was set. A file that leaves one running can disturb the files after it when
 * files share a process (the unit tier does; see docs/testing-speed.md).
 */
import { afterAll, expect } from 'vitest';

const INSTALLED = Symbol.for('rxkube.timerAudit');
interface Audit {
  readonly live: Map<unknown, string>;
  readonly realClear: typeof clearInterval;
}

/** Wraps `setInterval` once per process (setup files run again before every file). */
function install(): Audit {
  const holder = globalThis as { [INSTALLED]?: Audit };
  if (holder[INSTALLED] !== undefined) return holder[INSTALLED];
  const live = new Map<unknown, string>();
  const realSet = globalThis.setInterval;
  const realClear = globalThis.clearInterval;
  const realClearTimeout = globalThis.clearTimeout;
  const where = (): string => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    return stack
      .split('\n')
      .slice(3)
      .filter((line) => !line.includes('node_modules') && !line.includes('node:internal') && !line.includes('<anonymous>'))
      .slice(0, 6)
      .join('\n');
  };
  globalThis.setInterval = ((handler: () => void, ms?: number) => {
    const handle = realSet(handler, ms);
    live.set(handle, `every ${String(ms)} ms\n${where()}`);
    return handle;
  }) as typeof setInterval;
  globalThis.clearInterval = ((handle: Parameters<typeof clearInterval>[0]) => {
    live.delete(handle);
    realClear(handle);
  }) as typeof clearInterval;
  // Node clears an interval with clearTimeout too.
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    live.delete(handle);
    realClearTimeout(handle);
  }) as typeof clearTimeout;
  holder[INSTALLED] = { live, realClear };
  return holder[INSTALLED];
}

if (process.env['RXKUBE_TIMER_AUDIT'] === '1') {
  const { live, realClear } = install();
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 50));
    if (live.size === 0) return;
    const file = expect.getState().testPath ?? 'a test file';
    process.stderr.write(`\n[timer-audit] ${file}: ${live.size} interval(s) still running\n${[...live.values()].join('\n--\n')}\n`);
    for (const handle of live.keys()) realClear(handle as Parameters<typeof clearInterval>[0]);
    live.clear();
  });
}
