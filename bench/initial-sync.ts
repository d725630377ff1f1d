/**
 * Initial sync: time, CPU and peak memory from start to synced for 10k and 100k realistic pods
 * (~3.3 KB of JSON each, with managedFields).
 *
 * Paged server (lists in pages of 500; the embedded server emulating Kubernetes 1.34, which
 * serves streaming lists): rxkube's informer starting with a streaming list (`sendInitialEvents`,
 * the reflector's default: the initial state comes as watch events on the watch that carries on),
 * rxkube's informer with a paged list then a watch (`streamingList: false`; pipelined pages, the
 * default `listParse: 'auto'`: kept and parsed together within `listMemoryBudget`, then item by
 * item), the same with `listParse: 'atEnd'` (every page kept until the last), `'items'` and
 * `'perPage'` (docs/initial-sync-memory.md), rxkube with pages fetched and parsed one after another (client-go's pager order),
 * @kubernetes/client-node's `makeInformer` (one unpaged list), client-go's SharedIndexInformer
 * (when a Go toolchain and the kubernetes source are there, see `support/client-go.ts`), the
 * floor (the same HTTP requests as client-go's pager, one after another, bodies `JSON.parse`d,
 * nothing else) and the server's own rate (the same requests, bodies read and not parsed).
 *
 * Unpaged list (one response holding every pod, as kube-apiserver answers a list at
 * resourceVersion 0 from its watch cache): the server delivering it (read, not parsed), the
 * floor (read, then parsed: "client parses" is its `JSON.parse` alone) and rxkube's informer
 * (by default a page without a continue token is parsed item by item as it arrives; the second
 * rxkube row forces that decoding for every page).
 *
 * The server runs in a child process, seeded once; every run of every contender is a fresh child
 * process (own heap), and the contenders take turns within each repetition so that load drift on
 * the machine hits them alike. Run alone: `npx tsx --conditions=source bench/initial-sync.ts`.
 * Experiments: `RXKUBE_BENCH_SYNC=100000:1` (sizes:runs), `RXKUBE_BENCH_SYNC_CONTENDERS=floor,rxkube`,
 * `RXKUBE_BENCH_SYNC_UNPAGED=0` (skip the unpaged part), `RXKUBE_BENCH_VERBOSE=1`,
 * `RXKUBE_BENCH_NODE_ARGS='--trace-gc'` (extra Node.js flags of the contender processes).
 */
import { pathToFileURL } from 'node:url';
import { type ClientGoBinary, clientGoBinary, clientGoSync } from './support/client-go.js';
import type { ContenderName } from './support/contenders.js';
import { spawnWorker, type Worker } from './support/rpc.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

type Name = ContenderName | 'client-go';

const SIZES: ReadonlyArray<{ n: number; runs: number }> = process.env.RXKUBE_BENCH_SYNC
  ? process.env.RXKUBE_BENCH_SYNC.split(',').map((x) => ({ n: Number(x.split(':')[0]), runs: Number(x.split(':')[1] ?? 1) }))
  : [
      { n: 10_000, runs: 5 },
      { n: 100_000, runs: 3 },
    ];
const ONLY = process.env.RXKUBE_BENCH_SYNC_CONTENDERS?.split(',');
const pick = (names: readonly Name[]): Name[] => names.filter((n) => ONLY === undefined || ONLY.includes(n));
const PAGED: readonly Name[] = pick(['server', 'floor', 'rxkube-paged', 'rxkube-at-end', 'rxkube-paged-items', 'rxkube-per-page', 'rxkube-streaming', 'rxkube-fetch', 'rxkube-sequential', 'client-node', 'client-go']);
/** The unpaged part runs at the largest size only. */
const UNPAGED: readonly Name[] = process.env.RXKUBE_BENCH_SYNC_UNPAGED === '0' ? [] : pick(['server-unpaged', 'floor-unpaged', 'rxkube-unpaged', 'rxkube-unpaged-items']);
const LABEL: Record<string, string> = {
  server: 'server alone (bodies read, not parsed)',
  floor: 'floor (same requests, one after another + JSON.parse)',
  'rxkube-paged': 'rxkube (paged list + watch): informer, default `listParse: \'auto\'` (pages kept and parsed together within a 64 MiB budget, then item by item)',
  'rxkube-at-end': 'rxkube (paged list + watch), `listParse: \'atEnd\'`: every page kept, all parsed together at the end',
  'rxkube-per-page': 'rxkube (paged list + watch), pipelined pages each parsed as it arrives (`listParse: \'perPage\'`)',
  'rxkube-paged-items': 'rxkube (paged list + watch), `listParse: \'items\'`: every page parsed item by item as it arrives',
  'rxkube-streaming': 'rxkube (streaming list): informer, initial state as watch events (sendInitialEvents)',
  'rxkube-fetch': 'rxkube informer over fetch (fetchClient, the browser transport)',
  'rxkube-sequential': 'rxkube, pages one after another, each parsed as it arrives',
  'client-node': '@kubernetes/client-node makeInformer (one unpaged list)',
  'client-go': 'client-go SharedIndexInformer (Go)',
  'server-unpaged': 'server delivers (body read, not parsed)',
  'floor-unpaged': 'floor (body read, then JSON.parse)',
  'rxkube-unpaged': 'rxkube informer (default: a last or only page is parsed item by item as it arrives)',
  'rxkube-unpaged-items': 'rxkube informer, item-by-item decoding forced for every page',
};

interface SyncResult {
  ms: number;
  cpuMs: number;
  cpuSettledMs: number;
  peakRssGrowth: number;
  size: number;
  /** floor contenders: ms spent in JSON.parse. */
  parseMs?: number;
}

async function syncOnce(name: Name, url: string, n: number, clientGo: ClientGoBinary): Promise<SyncResult> {
  if (name === 'client-go') {
    if (!('path' in clientGo)) throw new Error('client-go is not built');
    return clientGoSync(clientGo.path, url, n);
  }
  const w = spawnWorker('bench/support/contender-process.ts', process.env.RXKUBE_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []);
  try {
    return await w.call<SyncResult>('sync', { name, url, expect: n });
  } finally {
    await w.kill();
  }
}

export async function run(): Promise<string[]> {
  const clientGo: ClientGoBinary = PAGED.includes('client-go') ? await clientGoBinary() : { skip: 'not selected' };
  const paged = PAGED.filter((n) => n !== 'client-go' || 'path' in clientGo);
  const server: Worker = spawnWorker('bench/support/server-process.ts');
  const lines: string[] = [];
  const results = new Map<string, SyncResult[]>();
  const add = (key: string, res: SyncResult) => {
    if (process.env.RXKUBE_BENCH_VERBOSE) console.log(`${key}: ${JSON.stringify(res)}`);
    results.set(key, [...(results.get(key) ?? []), res]);
  };
  const largest = SIZES[SIZES.length - 1] ?? { n: 0, runs: 0 };
  try {
    const { url } = await server.call<{ url: string }>('start', {});
    let seeded = 0;
    let bytes = 0;
    for (const { n, runs } of SIZES) {
      const seed = await server.call<{ ms: number; bytes: number }>('seed', { from: seeded, to: n });
      seeded = n;
      bytes = seed.bytes;
      for (let r = 0; r < runs; r++) {
        for (const name of paged) add(`${name}@${n}`, await syncOnce(name, url, n, clientGo));
        if (n === largest.n) for (const name of UNPAGED) add(`${name}@${n}`, await syncOnce(name, url, n, clientGo));
      }
    }
    const med = (name: string, n: number, f: (r: SyncResult) => number) => median((results.get(`${name}@${n}`) ?? []).map(f));
    const k = (n: number) => `${fmt(n / 1000)}k`;
    const table = (names: readonly Name[], sizes: ReadonlyArray<{ n: number }>) => {
      lines.push(
        row(['contender', ...sizes.flatMap((s) => [`${k(s.n)}: ms`, `${k(s.n)}: objects/s`, `${k(s.n)}: CPU ms`, `${k(s.n)}: settled CPU ms`, `${k(s.n)}: peak MB`])]),
        row(['---', ...sizes.flatMap(() => ['---', '---', '---', '---', '---'])]),
      );
      for (const name of names) {
        lines.push(
          row([
            LABEL[name] ?? name,
            ...sizes.flatMap(({ n }) => {
              const rs = results.get(`${name}@${n}`) ?? [];
              const peak = name.startsWith('server') ? 'n/a' : summary(rs.map((x) => x.peakRssGrowth / 2 ** 20));
              return [summary(rs.map((x) => x.ms)), fmt(n / (med(name, n, (x) => x.ms) / 1000)), summary(rs.map((x) => x.cpuMs)), summary(rs.map((x) => x.cpuSettledMs)), peak];
            }),
          ]),
        );
      }
    };
    const ratios = (a: string, b: string, sizes: ReadonlyArray<{ n: number }>) =>
      sizes.flatMap(({ n }) => [
        ratio(med(a, n, (x) => x.ms), med(b, n, (x) => x.ms)),
        ratio(med(a, n, (x) => x.cpuMs), med(b, n, (x) => x.cpuMs)),
        ratio(med(a, n, (x) => x.cpuSettledMs), med(b, n, (x) => x.cpuSettledMs)),
        b.startsWith('server') ? 'n/a' : ratio(med(a, n, (x) => x.peakRssGrowth), med(b, n, (x) => x.peakRssGrowth)),
      ]);
    const has = (name: Name) => paged.includes(name);

    lines.push(
      `Pods of ${fmt(bytes)} bytes of JSON each (managedFields included). From start to synced: wall-clock ms, CPU ms of the`,
      'contender process (user + system, all threads, so GC is included; far less sensitive to other load on the machine),',
      '"settled" CPU ms (the same plus two young-generation GCs right after synced, which promote the objects the contender',
      'keeps: the floor stops its clock after its last JSON.parse and leaves that work to whatever runs next, an informer pays',
      'it while processing; Go has no young generation, so client-go\'s is its CPU) and the peak RSS growth (MB, from the OS',
      'maxRSS). Each run is a fresh process.',
      '',
      `### Paged server (pages of 500)`,
      '',
      `Median (min–max) of ${SIZES.map((s) => `${s.runs} runs at ${fmt(s.n)}`).join(', ')}.`,
      'client-go: ' + ('path' in clientGo ? `built with ${clientGo.goVersion} from the client-go of Kubernetes 1.20.2 (Debian's source package), client-side rate limit off, managedFields kept (1.20 has no transform).` : `skipped: ${clientGo.skip}.`),
      '',
    );
    table(paged, SIZES);
    lines.push('', row(['ratio (of medians)', ...SIZES.flatMap(({ n }) => [`${k(n)}: time`, `${k(n)}: CPU`, `${k(n)}: settled CPU`, `${k(n)}: peak memory`])]));
    lines.push(row(['---', ...SIZES.flatMap(() => ['---', '---', '---', '---'])]));
    if (has('rxkube-paged') && has('floor')) lines.push(row(['rxkube (paged) / floor (target at 100k ≤ 0.60× time)', ...ratios('rxkube-paged', 'floor', SIZES)]));
    if (has('rxkube-streaming') && has('rxkube-paged')) lines.push(row(['rxkube streaming list / rxkube paged list + watch', ...ratios('rxkube-streaming', 'rxkube-paged', SIZES)]));
    if (has('rxkube-streaming') && has('floor')) lines.push(row(['rxkube (streaming list) / floor', ...ratios('rxkube-streaming', 'floor', SIZES)]));
    if (has('rxkube-paged') && has('rxkube-fetch')) lines.push(row(['rxkube over fetch / rxkube over node:http (both paged)', ...ratios('rxkube-fetch', 'rxkube-paged', SIZES)]));
    if (has('rxkube-paged') && has('client-node')) lines.push(row(['rxkube (paged) / client-node (target ≤ 1×)', ...ratios('rxkube-paged', 'client-node', SIZES)]));
    if (has('rxkube-paged') && has('client-go')) lines.push(row(['rxkube (paged) / client-go', ...ratios('rxkube-paged', 'client-go', SIZES)]));
    if (has('rxkube-paged') && has('rxkube-sequential')) lines.push(row(['rxkube (paged) / rxkube one page after another', ...ratios('rxkube-paged', 'rxkube-sequential', SIZES)]));
    if (has('rxkube-paged') && has('rxkube-at-end')) lines.push(row(["rxkube (paged, default 'auto') / rxkube 'atEnd'", ...ratios('rxkube-paged', 'rxkube-at-end', SIZES)]));
    if (has('rxkube-paged-items') && has('rxkube-at-end')) lines.push(row(["rxkube 'items' / rxkube 'atEnd'", ...ratios('rxkube-paged-items', 'rxkube-at-end', SIZES)]));
    if (has('floor') && has('server')) lines.push(row(['floor / server alone', ...ratios('floor', 'server', SIZES)]));

    if (UNPAGED.length > 0) {
      const n = largest.n;
      const one = [{ n }];
      lines.push('', `### Unpaged list (one response of ${fmt(n)} pods)`, '', `Median (min–max) of ${largest.runs} runs.`, '');
      table(UNPAGED, one);
      const deliver = med('server-unpaged', n, (x) => x.ms);
      const parse = med('floor-unpaged', n, (x) => x.parseMs ?? Number.NaN);
      const bound = Math.max(deliver, parse);
      lines.push(
        '',
        row(['measure', 'ms']),
        row(['---', '---']),
        row(['server delivers (body read, not parsed)', fmt(deliver)]),
        row(['client parses (JSON.parse of the whole body, in the floor)', `${fmt(parse)} (${summary((results.get(`floor-unpaged@${n}`) ?? []).map((x) => x.parseMs ?? Number.NaN))})`]),
        row(['rxkube informer to synced', fmt(med('rxkube-unpaged', n, (x) => x.ms))]),
        row(['rxkube, item-by-item decoding forced, to synced', fmt(med('rxkube-unpaged-items', n, (x) => x.ms))]),
        row(['rxkube / max(delivers, parses) (target ≤ 1.10×)', ratio(med('rxkube-unpaged', n, (x) => x.ms), bound)]),
        row(['rxkube items-as-they-arrive / max(delivers, parses)', ratio(med('rxkube-unpaged-items', n, (x) => x.ms), bound)]),
      );
    }
  } finally {
    await server.call('close').catch(() => undefined);
    await server.kill();
  }
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
