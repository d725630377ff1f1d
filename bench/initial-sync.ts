/**
 * Initial sync: time and peak memory from start to synced for 10k and 100k realistic pods
 * (~3.3 KB of JSON each, with managedFields), for rxkube's informer, @kubernetes/client-node's
 * `makeInformer` and the floor (the same HTTP requests, bodies `JSON.parse`d, nothing else), plus
 * the server's own rate (the same requests, bodies read and not parsed).
 *
 * The server runs in a child process, seeded once; every run of every contender is a fresh child
 * process (own heap), and the contenders take turns within each repetition so that load drift on
 * the machine hits them alike. Run alone: `npx tsx --conditions=source bench/initial-sync.ts`.
 */
import { pathToFileURL } from 'node:url';
import type { ContenderName } from './support/contenders.js';
import { spawnWorker, type Worker } from './support/rpc.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

/** `RXKUBE_BENCH_SYNC=100000:1,10000:3` overrides the sizes and runs (for experiments). */
const SIZES: ReadonlyArray<{ n: number; runs: number }> = process.env.RXKUBE_BENCH_SYNC
  ? process.env.RXKUBE_BENCH_SYNC.split(',').map((x) => ({ n: Number(x.split(':')[0]), runs: Number(x.split(':')[1] ?? 1) }))
  : [
      { n: 10_000, runs: 5 },
      { n: 100_000, runs: 3 },
    ];
/** `RXKUBE_BENCH_SYNC_CONTENDERS=floor,rxkube` runs only those (for experiments). */
const CONTENDERS: readonly ContenderName[] = process.env.RXKUBE_BENCH_SYNC_CONTENDERS
  ? (process.env.RXKUBE_BENCH_SYNC_CONTENDERS.split(',') as ContenderName[])
  : ['server', 'floor', 'rxkube', 'client-node'];
const LABEL: Record<string, string> = {
  server: 'server alone (bodies read, not parsed)',
  floor: 'floor (same requests + JSON.parse)',
  rxkube: 'rxkube informer',
  'client-node': '@kubernetes/client-node makeInformer',
};

interface SyncResult {
  ms: number;
  cpuMs: number;
  cpuSettledMs: number;
  peakRssGrowth: number;
  size: number;
}

async function syncOnce(name: ContenderName, url: string, n: number): Promise<SyncResult> {
  const w = spawnWorker('bench/support/contender-process.ts');
  try {
    return await w.call<SyncResult>('sync', { name, url, expect: n });
  } finally {
    await w.kill();
  }
}

export async function run(): Promise<string[]> {
  const server: Worker = spawnWorker('bench/support/server-process.ts');
  const lines: string[] = [];
  try {
    const { url } = await server.call<{ url: string }>('start', {});
    let seeded = 0;
    const results = new Map<string, SyncResult[]>();
    let bytes = 0;
    for (const { n, runs } of SIZES) {
      const seed = await server.call<{ ms: number; bytes: number }>('seed', { from: seeded, to: n });
      seeded = n;
      bytes = seed.bytes;
      for (let r = 0; r < runs; r++) {
        for (const name of CONTENDERS) {
          const key = `${name}@${n}`;
          const res = await syncOnce(name, url, n);
          if (process.env.RXKUBE_BENCH_VERBOSE) console.log(`${key}: ${JSON.stringify(res)}`);
          results.set(key, [...(results.get(key) ?? []), res]);
        }
      }
    }
    lines.push(
      `Pods of ${fmt(bytes)} bytes of JSON each (managedFields included); lists paged by 500 (client-node: one unpaged list, as its`,
      'examples do). From start to synced: wall-clock ms, CPU ms of the contender process (user + system, all threads,',
      'so GC is included; less sensitive to other load on the machine), "settled" CPU ms (the same plus two young-generation',
      'GCs right after synced, which promote the objects the contender keeps: the floor stops its clock after its last',
      'JSON.parse and leaves that work to whatever runs next, an informer pays it while processing) and the peak RSS growth',
      '(MB, from the OS maxRSS).',
      `Median (min–max) of ${SIZES.map((s) => `${s.runs} runs at ${fmt(s.n)}`).join(', ')}; each run is a fresh process.`,
      '',
      row(['contender', ...SIZES.flatMap((s) => [`${fmt(s.n / 1000)}k: ms`, `${fmt(s.n / 1000)}k: objects/s`, `${fmt(s.n / 1000)}k: CPU ms`, `${fmt(s.n / 1000)}k: settled CPU ms`, `${fmt(s.n / 1000)}k: peak MB`])]),
      row(['---', ...SIZES.flatMap(() => ['---', '---', '---', '---', '---'])]),
    );
    const med = (name: string, n: number, f: (r: SyncResult) => number) => median((results.get(`${name}@${n}`) ?? []).map(f));
    for (const name of CONTENDERS) {
      lines.push(
        row([
          LABEL[name] ?? name,
          ...SIZES.flatMap(({ n }) => {
            const rs = results.get(`${name}@${n}`) ?? [];
            const peak = name === 'server' ? 'n/a' : summary(rs.map((x) => x.peakRssGrowth / 2 ** 20));
            return [summary(rs.map((x) => x.ms)), fmt(n / (med(name, n, (x) => x.ms) / 1000)), summary(rs.map((x) => x.cpuMs)), summary(rs.map((x) => x.cpuSettledMs)), peak];
          }),
        ]),
      );
    }
    const k = (n: number) => `${fmt(n / 1000)}k`;
    lines.push('', row(['ratio (of medians)', ...SIZES.flatMap(({ n }) => [`${k(n)}: time`, `${k(n)}: CPU`, `${k(n)}: settled CPU`, `${k(n)}: peak memory`])]));
    lines.push(row(['---', ...SIZES.flatMap(() => ['---', '---', '---', '---'])]));
    const ratios = (a: string, b: string) =>
      SIZES.flatMap(({ n }) => [
        ratio(med(a, n, (x) => x.ms), med(b, n, (x) => x.ms)),
        ratio(med(a, n, (x) => x.cpuMs), med(b, n, (x) => x.cpuMs)),
        ratio(med(a, n, (x) => x.cpuSettledMs), med(b, n, (x) => x.cpuSettledMs)),
        b === 'server' ? 'n/a' : ratio(med(a, n, (x) => x.peakRssGrowth), med(b, n, (x) => x.peakRssGrowth)),
      ]);
    lines.push(row(['rxkube / floor (target ≤ 1.30× time)', ...ratios('rxkube', 'floor')]));
    lines.push(row(['client-node / rxkube (target > 1×)', ...ratios('client-node', 'rxkube')]));
    lines.push(row(['floor / server alone', ...ratios('floor', 'server')]));
  } finally {
    await server.call('close').catch(() => undefined);
    await server.kill();
  }
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
