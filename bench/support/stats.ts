/** Small statistics and formatting helpers shared by the benchmark modules. */

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
