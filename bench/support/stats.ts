/** Small statistics and formatting helpers shared by the benchmark modules. */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Median of `xs` (the upper one for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Formats `x` with `digits` decimals and thousands separators. */
export function fmt(x: number, digits = 0): string {
  if (!Number.isFinite(x)) return 'n/a';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `median (min–max)` of `xs`, formatted. */
export function summary(xs: readonly number[], digits = 0): string {
  if (xs.length === 0) return 'n/a';
  return `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;
}

/** `a / b` as `1.23×`. */
export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return 'n/a';
  return `${(a / b).toFixed(2)}×`;
}

/** One line of a Markdown table. */
export function row(cells: readonly (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

/**
 * A stopwatch of this process's CPU time (user + system, all threads: GC helpers included), in
 * ms. On a machine shared with other work it is far steadier than wall-clock time, which counts
 * the time spent waiting for a core.
 */
export function cpuClock(): () => number {
  const start = process.cpuUsage();
  return () => {
    const d = process.cpuUsage(start);
    return (d.user + d.system) / 1000;
  };
}

let gcFn: ((options?: { type: 'minor' | 'major' }) => void) | undefined;

/** A young-generation garbage collection (a scavenge). */
export function minorGc(): void {
  enableGc()({ type: 'minor' });
}

function enableGc(): (options?: { type: 'minor' | 'major' }) => void {
  if (gcFn === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed !== undefined) gcFn = exposed;
    else {
      v8.setFlagsFromString('--expose-gc');
      gcFn = vm.runInNewContext('gc') as () => void;
    }
  }
  return gcFn;
}

/** A full garbage collection (enables `gc` at run time when the process was started without `--expose-gc`). */
export function forceGc(): void {
  const gc = enableGc();
  gc();
  gc();
}
