/**
 * `npm run bench`: runs every benchmark module in this folder in one process, one after another,
 * prints their lines, and rewrites BENCHMARKS.md with the results and a description of the machine.
 * A benchmark module exports `run(): Promise<string[]>` (Markdown-friendly lines).
 *
 * `npm run bench -- api-server` (any part of module paths) runs only the modules named and
 * replaces only their sections in BENCHMARKS.md, each with a line saying when and where it was
 * regenerated; the other sections keep the numbers of the run that wrote them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';

interface BenchModule {
  run(): Promise<string[]>;
}

const modules: Array<{ title: string; path: string }> = [
  { title: 'Install size and import time: rxkube against client-node', path: './install-footprint.js' },
  { title: 'Initial sync', path: './initial-sync.js' },
  { title: 'Watch throughput (item 2)', path: './watch-throughput.js' },
  { title: 'Memory: retained heap per cached object (item 3)', path: './memory.js' },
  { title: 'Memory: metadata-only informer vs default transform', path: './metadata-memory.js' },
  { title: 'Workqueue (item 4)', path: './workqueue.js' },
  { title: 'Fan-out: one informer, many subscribers (item 5)', path: './fan-out.js' },
  { title: 'What costs what inside the informer (no HTTP)', path: './cost-breakdown.js' },
  { title: 'Cache core: deltaFifo + indexStore', path: './cache-core.js' },
  { title: 'state$: immutable cache snapshots', path: './state.js' },
  { title: 'Sharded controller: throughput at 1, 2 and 3 replicas', path: './sharded-throughput.js' },
  { title: 'Embedded API server: list, watch and create throughput (strict, lenient, before)', path: './api-server.js' },
  { title: 'Admission webhook: requests/s and p99 against a plain node:https handler', path: './webhook.js' },
  { title: 'Read-your-writes: reconciles with and without it', path: './read-your-writes.js' },
  { title: 'Browser bundle: informer + state$ + one operator', path: './browser-bundle.js' },
];

/** Replaces the `## title` section of `doc` (up to the next `## ` heading) with `section`, or appends it. */
function replaceSection(doc: string, title: string, section: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start === -1) return `${doc.trimEnd()}\n\n${section}`;
  const next = doc.indexOf('\n## ', start + 1);
  return `${doc.slice(0, start + 1)}${section}${next === -1 ? '' : doc.slice(next)}`;
}

/** The `## ` sections of `doc` that no benchmark module writes (and that are not the method or the findings). */
function handWrittenSections(doc: string): string[] {
  const generated = new Set([...modules.map((m) => m.title), 'Method', 'Findings (what costs what)']);
  return doc
    .split(/\n(?=## )/)
    .slice(1)
    .filter((part) => !generated.has(part.slice(3, part.indexOf('\n')).trim()))
    .map((part) => `${part.trimEnd()}\n`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.filter((a) => !a.startsWith('--'));
  const sections: string[] = [];
  const partial: Array<{ title: string; lines: string[]; load0: number; load1: number; minutes: string }> = [];
  const load0 = os.loadavg()[0] ?? 0;
  const t0 = performance.now();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const machine = `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
  for (const { title, path } of modules) {
    if (only.length > 0 && !only.some((o) => path.includes(o))) continue;
    console.log(`\n## ${title}\n`);
    const m0 = performance.now();
    const l0 = os.loadavg()[0] ?? 0;
    const mod = (await import(path)) as BenchModule;
    const lines = await mod.run();
    for (const line of lines) console.log(line);
    sections.push(`## ${title}\n\n${lines.join('\n')}\n`);
    partial.push({ title, lines, load0: l0, load1: os.loadavg()[0] ?? 0, minutes: ((performance.now() - m0) / 60_000).toFixed(1) });
  }
  if (only.length > 0) {
    // Only the sections run are replaced; the rest of the file stays as the last full run wrote it.
    const file = new URL('../BENCHMARKS.md', import.meta.url);
    let doc = await readFile(file, 'utf8');
    for (const p of partial) {
      const env = process.env['RXKUBE_BENCH_KUBE_APISERVER'] === '1' ? 'RXKUBE_BENCH_KUBE_APISERVER=1 KUBECONFIG=… ' : '';
      const note = `_This section was regenerated alone (\`${env}npm run bench -- ${only.join(' ')}\`) on ${new Date().toISOString().slice(0, 10)}: ${machine}; ${p.minutes} min; 1-minute load average ${p.load0.toFixed(1)} at its start and ${p.load1.toFixed(1)} at its end._`;
      doc = replaceSection(doc, p.title, `## ${p.title}\n\n${note}\n\n${p.lines.join('\n')}\n`);
    }
    await writeFile(file, doc);
    return;
  }
  const load1 = os.loadavg()[0] ?? 0;
  // The findings are prose about the figures (bench/findings.md, written after a full run); the
  // sections no module writes (hand-measured figures) are kept from the file as it was.
  const findings = (await readFile(new URL('./findings.md', import.meta.url), 'utf8')).replace(/^<!--[\s\S]*?-->\n/, '');
  const kept = handWrittenSections(await readFile(new URL('../BENCHMARKS.md', import.meta.url), 'utf8').catch(() => ''));
  const minutes = ((performance.now() - t0) / 60_000).toFixed(1);
  const doc = [
    '# Benchmarks',
    '',
    'Generated by `npm run bench`; every figure below comes from one run on one machine, with',
    'ratios measured side by side in that run. Numbers are medians of several runs with their spread.',
    '',
    `Machine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}. Run time ${minutes} min; 1-minute load average`,
    `${load0.toFixed(1)} at the start and ${load1.toFixed(1)} at the end (the machine may be shared: wall-clock figures then vary a lot,`,
    'CPU-time figures much less).',
    '',
    '## Method',
    '',
    '- Server and clients run in the same `npm run bench`. The embedded API server (`rxkube/testing`, plain HTTP on',
    '  loopback) runs in a child process of its own; every run of every contender is a fresh child process',
    '  (`--expose-gc`), so heaps never mix and peak memory is the contender\'s own. Contenders take turns within each',
    '  repetition, so drifting load on the machine hits them alike.',
    '- Pods: about 3.3 KB of JSON each, shaped like ReplicaSet pods on a real cluster, a third of it `managedFields`',
    '  (`bench/support/pods.ts`).',
    '- The floor sends the same HTTP requests as client-go\'s pager (list pages of 500, one after another, then a watch),',
    '  reads the bodies and `JSON.parse`s them, nothing else; "server alone" sends them too but does not parse, so its rate',
    '  is what the server can deliver (it has to be well above the floor\'s for the floor to mean anything). rxkube sends',
    '  the same requests but pipelines them (page N+1 is requested as soon as page N\'s continue token, which precedes the',
    '  items, has been read) and, by default, keeps the pages\' bodies and parses them together while they fit a 64 MiB',
    '  budget, and item by item as they arrive past it (`listParse: \'auto\'`, docs/initial-sync-memory.md).',
    '- client-go is a contender when a Go toolchain is there: `bench/client-go/main.go` (a pods SharedIndexInformer) is built',
    '  at bench time from the client-go vendored in Debian\'s `kubernetes` source package into `~/.cache/rxkube`',
    '  (`bench/support/client-go.ts`); without Go or the source it is skipped with the reason printed.',
    '- Watch throughput: modifications are queued on frozen watches, already serialised, then released at once, so the',
    '  server only writes; the client reads a sustained stream as fast as it can (TCP backpressure).',
    '- Two clocks: wall clock (what the targets are stated in) and the contender process\'s CPU time (user +',
    '  system, all threads, so GC is included), which a busy machine disturbs far less. Where they disagree, trust CPU.',
    '- Embedded API server section: today\'s server in strict mode (the default) and lenient, against the server as it was',
    '  before the Kubernetes 1.20.2 emulation work (commit 5e4abd7, extracted from git history into the cache at bench time by',
    '  `bench/support/baseline-server.ts`; skipped with the reason printed without history), each in a process of its own.',
    '- Profiles: `RXKUBE_BENCH_PROFILE=/some/dir npx tsx --conditions=source bench/initial-sync.ts` (or',
    '  `watch-throughput.ts`) writes a `.cpuprofile` of every measured window of every contender.',
    '',
    '## Findings (what costs what)',
    '',
    findings,
    ...sections,
    ...kept,
  ].join('\n');
  await writeFile(new URL('../BENCHMARKS.md', import.meta.url), doc);
}

await main();
