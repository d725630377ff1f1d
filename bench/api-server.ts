/**
 * The embedded API server's own throughput, side by side in one run, for three servers: today's
 * in strict mode (the default: defaulting and validation as kube-apiserver 1.20), today's lenient
 * (`strict: false`), and the baseline — the server as it was before the Kubernetes 1.20.2
 * emulation work (bench/support/baseline-server.ts; skipped, with the reason printed, when this
 * clone has no git history). Each server runs in a process of its own, the HTTP clients in
 * another; servers take turns within each repetition.
 *
 * - List: `GET /api/v1/pods` of 10k realistic pods (~3.3 KB of JSON each) in one response, read to
 *   the last byte (not parsed); JSON, and protobuf where served.
 * - Watch: a writer in the server process updates pods as fast as it can (read-modify-write of a
 *   label and an annotation, through the direct API: the PUT path without HTTP, admission
 *   included), 100 per turn of the event loop; 1 and 8 watchers count the events (newlines).
 *   events/s per watcher, from its first event to its last.
 * - Create: `POST` of realistic pods (no status, no server-set metadata), 16 in flight.
 * - Update: the pods of each create run read back (not measured), then `PUT` with a label and an
 *   annotation changed (resourceVersion included: a read-modify-write), 16 in flight.
 * - CPU of the server process per operation (after a full garbage collection, so that one measurement does not pay
 *   for the garbage of the one before): steadier than the wall clock on a shared machine.
 *
 * - Start-up, side by side in one run: in a fresh process, the import of `@rxkube/testkit`,
 *   `startApiServer()` until it answers `/readyz`, with `tls` and `token`, and `inProcessCluster()`
 *   until its client has listed namespaces (first and again); beside them kube-apiserver with etcd
 *   (the envtest equivalent) started by `$RXKUBE_KUBE_APISERVER_START DIR` until it is ready (by
 *   default the project's shared kube-apiserver `start.sh` beside this checkout, when its build is
 *   in the cache).
 *
 * Runs alone: `npx tsx --conditions=source bench/api-server.ts`, or `npm run bench -- api-server`
 * (which rewrites only this section of BENCHMARKS.md).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { baselineServer } from './support/baseline-server.js';
import { cacheDir, exists } from './support/client-go.js';
import { spawnWorker, type Worker } from './support/rpc.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

const OBJECTS = 10_000;
const LIST_RUNS = 5;
const WATCH_RUNS = 3;
const WATCH_EVENTS = 10_000;
const WATCHERS = [1, 8] as const;
const CREATE_RUNS = 3;
const CREATES = 1_000;
const CREATE_INFLIGHT = 16;
const KUBE_NAMESPACES = Array.from({ length: 50 }, (_, i) => `ns-${i}`);

interface Contender {
  readonly name: string;
  readonly label: string;
  readonly protobuf: boolean;
  /** A real kube-apiserver (KUBECONFIG): reached over HTTPS, no server process of ours, no watch writer. */
  readonly kube?: boolean;
  server?: Worker;
  url?: string;
}

type Samples = Map<string, number[]>;
function add(m: Samples, key: string, v: number): void {
  m.set(key, [...(m.get(key) ?? []), v]);
}

/**
 * The kube-apiserver + etcd start script: `$RXKUBE_KUBE_APISERVER_START`, else the project's shared
 * `kube-apiserver/start.sh` beside this checkout (`../shared`, or `../../shared` from a worktree)
 * when its build is already in the cache (`kube-<version>-…/bin`; the bench never builds it).
 */
async function kubeApiserverStart(): Promise<string> {
  const named = process.env['RXKUBE_KUBE_APISERVER_START'] ?? '';
  if (named !== '') return named;
  const builds = await readdir(cacheDir()).catch(() => [] as string[]);
  const built = builds.some((d) => d.startsWith('kube-') && existsSync(join(cacheDir(), d, 'bin', 'kube-apiserver')));
  if (!built) return '';
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const rel of ['../shared/kube-apiserver/start.sh', '../../shared/kube-apiserver/start.sh']) {
    if (await exists(join(root, rel))) return join(root, rel);
  }
  return '';
}

/** Start-up times (ms) of the embedded server in a fresh process, and of kube-apiserver + etcd when a start script is named. */
async function startup(testkit: string, resources: string): Promise<{ lines: string[] }> {
  const worker = spawnWorker('bench/support/startup-process.ts');
  let embedded: Record<string, number>;
  try {
    embedded = await worker.call<Record<string, number>>('measure', { module: testkit, resources });
  } finally {
    await worker.kill();
  }
  const start = await kubeApiserverStart();
  let kube = 'not measured (no built kube-apiserver beside this checkout; `RXKUBE_KUBE_APISERVER_START=…/start.sh` names the start script)';
  if (start !== '') {
    const dir = await mkdtemp(join(tmpdir(), 'rxkube-bench-kube-'));
    const t0 = performance.now();
    try {
      await promisify(execFile)('bash', [start, dir], { timeout: 300_000 });
      kube = fmt(Math.round(performance.now() - t0));
    } catch (e) {
      kube = `failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
    } finally {
      await promisify(execFile)('bash', [join(start, '..', 'stop.sh'), dir]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  }
  const ms = (k: string) => (embedded[k] === undefined ? 'n/a' : fmt(Math.round(embedded[k])));
  return {
    lines: [
      'Start-up to ready, ms (one run; the embedded server in a fresh process: its first start pays lazy loading):',
      '',
      row(['import @rxkube/testkit', 'startApiServer(): first', 'again', 'tls + token: first', 'again', 'inProcessCluster(): first', 'again', 'kube-apiserver + etcd (start.sh)']),
      row(['---', '---', '---', '---', '---', '---', '---', '---']),
      row([ms('import'), ms('startApiServer first'), ms('startApiServer again'), ms('startApiServer tls first'), ms('startApiServer tls again'), ms('inProcessCluster first'), ms('inProcessCluster again'), kube]),
    ],
  };
}

export async function run(): Promise<string[]> {
  // The embedded server moved to @rxkube/testkit (src/testing no longer exports it).
  const current = fileURLToPath(new URL('../packages/testkit/src/index.ts', import.meta.url));
  const starts = await startup(current, fileURLToPath(new URL('../src/index.ts', import.meta.url)));
  const baseline = await baselineServer();
  const contenders: Contender[] = [
    { name: 'strict', label: 'today, strict (default)', protobuf: true },
    { name: 'lenient', label: 'today, lenient (`strict: false`)', protobuf: true },
  ];
  if ('module' in baseline) contenders.push({ name: 'before', label: `before (${baseline.commit}, v0.1 server)`, protobuf: false });
  const notes: string[] = [];
  const useKube = process.env['RXKUBE_BENCH_KUBE_APISERVER'] === '1' && (process.env['KUBECONFIG'] ?? '') !== '';
  if (useKube) contenders.push({ name: 'kube', label: 'kube-apiserver (KUBECONFIG)', protobuf: true, kube: true });
  else notes.push('kube-apiserver is not a contender in this run (`RXKUBE_BENCH_KUBE_APISERVER=1` with `KUBECONFIG` pointing at a throwaway cluster adds it: the run creates namespaces `ns-0` … `ns-49` and 13,000 pods there).');
  if ('skip' in baseline) {
    notes.push(`The baseline server is skipped: ${baseline.skip}.`);
    console.log(`api-server bench: baseline skipped: ${baseline.skip}`);
  }
  const http = spawnWorker('bench/support/http-load-process.ts');
  const wall: Samples = new Map();
  const cpu: Samples = new Map();
  const seedMs: Samples = new Map();
  const listBytes = new Map<string, number>();
  try {
    for (const c of contenders) {
      if (c.kube === true) {
        // Seeded over HTTP (POST: no status), 16 in flight; namespaces ns-0 … ns-49 first.
        c.url = (await http.call<{ url: string }>('kube')).url;
        await http.call('namespaces', { url: c.url, names: KUBE_NAMESPACES });
        const seeded = await http.call<{ ms: number }>('create', { url: c.url, from: 0, count: OBJECTS, inflight: CREATE_INFLIGHT });
        add(seedMs, c.name, seeded.ms);
        continue;
      }
      c.server = spawnWorker('bench/support/api-server-process.ts');
      const { url } = await c.server.call<{ url: string }>('start', { module: c.name === 'before' && 'module' in baseline ? baseline.module : current, strict: c.name === 'strict' });
      c.url = url;
      const seeded = await c.server.call<{ ms: number; cpuMs: number }>('seed', { from: 0, to: OBJECTS });
      add(seedMs, c.name, seeded.ms);
    }
    const serverCpu = (c: Contender) => (c.server === undefined ? Promise.resolve(Number.NaN) : c.server.call<number>('cpu'));
    const collect = async (c: Contender) => void (await c.server?.call('gc'));
    const addCpu = (key: string, v: number) => {
      if (Number.isFinite(v)) add(cpu, key, v);
    };
    // Lists.
    for (let r = 0; r < LIST_RUNS; r++) {
      for (const c of contenders) {
        for (const format of c.protobuf ? ['json', 'protobuf'] : ['json']) {
          const accept = format === 'json' ? 'application/json' : 'application/vnd.kubernetes.protobuf';
          await collect(c);
          const c0 = await serverCpu(c);
          const res = await http.call<{ ms: number; bytes: number }>('list', { url: c.url, path: '/api/v1/pods', accept });
          const key = `list ${format} ${c.name}`;
          add(wall, key, res.ms);
          addCpu(key, (await serverCpu(c)) - c0);
          listBytes.set(`${format} ${c.name}`, res.bytes);
        }
      }
    }
    // Watches while a writer updates.
    let gen = 0;
    for (let r = 0; r < WATCH_RUNS; r++) {
      for (const n of WATCHERS) {
        for (const c of contenders) {
          if (c.server === undefined) continue; // the writer runs in the server's process
          const server = c.server;
          const rv = await server.call<number>('resourceVersion');
          await http.call('watch', { url: c.url, path: '/api/v1/pods', n, resourceVersion: rv, expect: WATCH_EVENTS });
          for (let i = 0; (await server.call<number>('openWatches')) < n; i++) {
            if (i > 500) throw new Error(`${c.name}: watches did not open`);
            await sleep(10);
          }
          await collect(c);
          const c0 = await serverCpu(c);
          const write = server.call<{ ms: number }>('write', { objects: OBJECTS, events: WATCH_EVENTS, gen: ++gen });
          const got = await http.call<{ perWatcher: Array<{ events: number; ms: number }>; ms: number }>('waitWatch', { timeoutMs: 600_000 });
          await write;
          const key = `watch ${n} ${c.name}`;
          add(wall, key, median(got.perWatcher.map((w) => ((w.events - 1) / w.ms) * 1000)));
          add(cpu, key, (((await serverCpu(c)) - c0) * 1000) / (WATCH_EVENTS * n));
          for (let i = 0; (await server.call<number>('openWatches')) > 0; i++) {
            if (i > 500) break;
            await sleep(10);
          }
        }
      }
    }
    // Creates.
    for (let r = 0; r < CREATE_RUNS; r++) {
      for (const c of contenders) {
        await collect(c);
        const c0 = await serverCpu(c);
        const res = await http.call<{ ms: number }>('create', { url: c.url, from: 100_000 + r * CREATES, count: CREATES, inflight: CREATE_INFLIGHT });
        const key = `create ${c.name}`;
        add(wall, key, (CREATES / res.ms) * 1000);
        addCpu(key, (((await serverCpu(c)) - c0) * 1000) / CREATES);
      }
      // Updates: each server's pods of this run read back (not measured), then PUT with a label and an annotation changed.
      for (const c of contenders) {
        await http.call('readForUpdate', { url: c.url, from: 100_000 + r * CREATES, count: CREATES, inflight: CREATE_INFLIGHT });
        await collect(c);
        const c0 = await serverCpu(c);
        const res = await http.call<{ ms: number; count: number }>('update', { url: c.url, inflight: CREATE_INFLIGHT, gen: r + 1 });
        const key = `update ${c.name}`;
        add(wall, key, (res.count / res.ms) * 1000);
        addCpu(key, (((await serverCpu(c)) - c0) * 1000) / res.count);
      }
    }
  } finally {
    for (const c of contenders) {
      if (c.kube === true && c.url !== undefined) await http.call('deleteNamespaces', { url: c.url, names: KUBE_NAMESPACES }).catch(() => undefined);
      await c.server?.call('close').catch(() => undefined);
      await c.server?.kill();
    }
    await http.kill();
  }

  const mb = (b: number | undefined) => (b === undefined ? 'n/a' : `${(b / 2 ** 20).toFixed(1)} MiB`);
  const w = (key: string) => wall.get(key) ?? [];
  const c = (key: string) => cpu.get(key) ?? [];
  const lines: string[] = [
    `${fmt(OBJECTS)} realistic pods (~3.3 KB of JSON each) seeded into each server; servers in processes of their own, clients in`,
    `another, taking turns. Wall clock in the client; CPU (user + system) of the server process, steadier on a shared machine.`,
    `Median (min–max) of ${LIST_RUNS} lists, ${WATCH_RUNS} watch runs of ${fmt(WATCH_EVENTS)} events, ${CREATE_RUNS} runs of ${fmt(CREATES)} creates.`,
    ...notes,
    '',
    row(['server', `list ${fmt(OBJECTS)} pods, JSON: size`, 'ms', 'server CPU ms', 'protobuf: size', 'ms', 'server CPU ms']),
    row(['---', '---', '---', '---', '---', '---', '---']),
    ...contenders.map((k) =>
      row([
        k.label,
        mb(listBytes.get(`json ${k.name}`)),
        summary(w(`list json ${k.name}`)),
        summary(c(`list json ${k.name}`)),
        ...(k.protobuf ? [mb(listBytes.get(`protobuf ${k.name}`)), summary(w(`list protobuf ${k.name}`)), summary(c(`list protobuf ${k.name}`))] : ['not served', '', '']),
      ]),
    ),
    '',
    row(['server', ...WATCHERS.flatMap((n) => [`watch, ${n} watcher${n > 1 ? 's' : ''}: events/s each`, 'server CPU µs per delivered event']), `create (POST, ${CREATE_INFLIGHT} in flight): pods/s`, 'server CPU µs per create', `update (PUT, ${CREATE_INFLIGHT} in flight): pods/s`, 'server CPU µs per update', 'seed 10k, ms (direct; kube-apiserver: POST)']),
    row(['---', ...WATCHERS.flatMap(() => ['---', '---']), '---', '---', '---', '---', '---']),
    ...contenders.map((k) =>
      row([
        k.label,
        ...WATCHERS.flatMap((n) => [summary(w(`watch ${n} ${k.name}`)), summary(c(`watch ${n} ${k.name}`), 1)]),
        summary(w(`create ${k.name}`)),
        summary(c(`create ${k.name}`), 1),
        summary(w(`update ${k.name}`)),
        summary(c(`update ${k.name}`), 1),
        summary(seedMs.get(k.name) ?? []),
      ]),
    ),
  ];
  const mw = (key: string) => median(w(key));
  const mc = (key: string) => median(c(key));
  // Speed ratios: ≥ 1.00× means the first server is at least as fast as the second.
  const speed = (a: string, b: string): string[] => [
    ratio(mw(`list json ${b}`), mw(`list json ${a}`)),
    ratio(mc(`list json ${b}`), mc(`list json ${a}`)),
    ...WATCHERS.flatMap((n) => [ratio(mw(`watch ${n} ${a}`), mw(`watch ${n} ${b}`)), ratio(mc(`watch ${n} ${b}`), mc(`watch ${n} ${a}`))]),
    ratio(mw(`create ${a}`), mw(`create ${b}`)),
    ratio(mc(`create ${b}`), mc(`create ${a}`)),
    ratio(mw(`update ${a}`), mw(`update ${b}`)),
    ratio(mc(`update ${b}`), mc(`update ${a}`)),
  ];
  lines.push(
    '',
    'Speed ratios of medians (≥ 1.00× = at least as fast; wall clock, then server CPU):',
    '',
    row(['ratio', 'list JSON', 'list CPU', ...WATCHERS.flatMap((n) => [`watch ×${n}`, `watch ×${n} CPU`]), 'create', 'create CPU', 'update', 'update CPU']),
    row(['---', '---', '---', ...WATCHERS.flatMap(() => ['---', '---']), '---', '---', '---', '---']),
  );
  if (contenders.some((k) => k.name === 'before')) {
    lines.push(row(['strict ÷ before', ...speed('strict', 'before')]));
    lines.push(row(['lenient ÷ before', ...speed('lenient', 'before')]));
  }
  lines.push(row(['strict ÷ lenient', ...speed('strict', 'lenient')]));
  if (useKube) lines.push(row(['strict ÷ kube-apiserver', ...speed('strict', 'kube')]));
  lines.push('', ...starts.lines);
  lines.push(
    '',
    `- Strict objects are larger: defaulting adds what kube-apiserver adds (tolerations, termination message path, pull`,
    `  policy, …), ${(((listBytes.get('json strict') ?? Number.NaN) / (listBytes.get('json lenient') ?? Number.NaN) - 1) * 100).toFixed(0)} % more JSON per pod here; a list costs in proportion. List CPU of the server is mostly one`,
    '  `join` of the stored objects\' cached JSON and the garbage collection it causes.',
    '- The writer\'s update is the watch benchmark\'s bottleneck with one watcher: every event is one update (admission,',
    '  store, serialisation once for all watchers). Strict admission copies the object (keeping only the fields the 1.20',
    '  schema knows), defaults it, validates it and compares the immutable parts with the stored object; that is the',
    '  strict ÷ lenient difference. Lenient updates cost less than the baseline\'s.',
    '- Creates over HTTP record `managedFields` (every write names a field manager, as on kube-apiserver), which the',
    '  baseline did not; with strict admission on top that is the create gap to the baseline.',
    '- Updates PUT the object as read (status, managedFields and all): the server walks it twice for field ownership and',
    '  admission (copy of the known fields, defaults, validation against the stored object) before storing it; the',
    '  baseline stored the body as sent.',
    '- Protobuf lists are encoded object by object with protobufjs from the stored JSON objects; smaller on the wire, but',
    '  several times the CPU of the cached JSON (the baseline served no protobuf).',
  );
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
