/**
 * `npm run soak`: the chaos soak against the embedded API server (see `chaos-soak.ts`).
 *
 * Flags: `--duration <s>` (default 120), `--keys <n>` (3000), `--ops <n per 5 ms tick>` (6),
 * `--fault-every <ms>` (400), `--seed <n>` (1), `--quiesce <s>` (60), `--json`.
 * Exits 1 when there is any violation.
 */
import { DEFAULT_SOAK, formatSoakReport, runSoak, type SoakOptions } from './chaos-soak.js';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function num(name: string, fallback: number, scale = 1): number {
  const v = flag(name);
  if (v === undefined) return fallback * scale;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} needs a non-negative number, got ${v}`);
    process.exit(2);
  }
  return n * scale;
}

const json = process.argv.includes('--json');
const options: SoakOptions = {
  ...DEFAULT_SOAK,
  durationMs: num('duration', DEFAULT_SOAK.durationMs / 1000, 1000),
  keys: num('keys', DEFAULT_SOAK.keys),
  opsPerTick: num('ops', DEFAULT_SOAK.opsPerTick),
  faultEveryMs: num('fault-every', DEFAULT_SOAK.faultEveryMs),
  seed: num('seed', DEFAULT_SOAK.seed),
  quiesceTimeoutMs: num('quiesce', DEFAULT_SOAK.quiesceTimeoutMs / 1000, 1000),
  log: json ? undefined : (line) => console.log(line),
};

const report = await runSoak(options);
if (json) console.log(JSON.stringify(report));
else for (const line of formatSoakReport(report)) console.log(line);
process.exitCode = report.violations.length === 0 ? 0 : 1;
