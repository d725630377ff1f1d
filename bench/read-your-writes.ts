/**
 * Read-your-writes: a controller's reconciles per second with it on (the default) and off
 * (`readYourWrites: false`), side by side in one run, alternating the two modes round by round.
 *
 * 1. Embedded API server (in this process, HTTP on loopback): OBJECTS ConfigMaps, each taken
 *    through STEPS steps; a reconcile reads `ctx.object`'s `data.step`, writes step + 1 with a JSON
 *    patch guarded by a `test` of the resourceVersion it read (a write computed from a stale read
 *    is refused, as an optimistic-concurrency update would be) and requeues at once
 *    (`requeueAfter: 1`, not rate-limited). The clock runs until every object reached STEPS on
 *    the server. Counted: reconciles, stale reads (`ctx.object` older than the controller's own last write of it), refused writes.
 *    Then LAG_OBJECTS × LAG_STEPS the same way with the informer's watch events WATCH_DELAY_MS late
 *    (a lagging watch, and a short queue): off, a requeued reconcile reads its stale copy, its
 *    write is refused and it requeues, again and again until the cache catches up; on, it waits.
 * 2. No HTTP (the cost of the bookkeeping alone): OBJECTS_FAKE objects in a fake source, a
 *    connection that answers every write at once and delivers its watch event on the next
 *    macrotask; each object is written once and reconciled again by its own event.
 *
 * Run alone: `npx tsx --conditions=source bench/read-your-writes.ts` (RXKUBE_BENCH_RYW_OBJECTS,
 * RXKUBE_BENCH_RYW_ROUNDS to change the size).
 */
import { pathToFileURL } from 'node:url';
import { delay, Subject } from 'rxjs';
import type { ListWatcher } from '../src/api/list-watcher.js';
import { startApiServer } from '../packages/testkit/src/api-server/start-api-server.js';
import type { KubeObject } from '../src/api/kube-object.js';
import type { InformerEvent } from '../src/cache/informer-event.js';
import { KubeClient } from '../src/client/kube-client.js';
import type { KubeConnection, KubeRequest } from '../src/client/kube-connection.js';
import { controller } from '../src/controller/controller.js';
import { InformerFactory } from '../src/informer/informer-factory.js';
import { fakeSource } from '../src/testing/controller-harness.js';
import { cpuClock, fmt, median, ratio, row, summary } from './support/stats.js';

const OBJECTS = Number(process.env.RXKUBE_BENCH_RYW_OBJECTS ?? 200);
const OBJECTS_FAKE = OBJECTS * 20;
const ROUNDS = Number(process.env.RXKUBE_BENCH_RYW_ROUNDS ?? 3);
const STEPS = 3;
/** How late the lagging informer sees each watch event. */
const WATCH_DELAY_MS = 50;
/** With the lagging watch: a short queue (a deep one hides the lag behind its own wait). */
const LAG_OBJECTS = 8;
const LAG_STEPS = 10;
const CONCURRENCY = 4;
const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;
type ConfigMap = KubeObject & { data?: Record<string, string> };
type Mode = 'on' | 'off';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Sample {
  seconds: number;
  /** CPU time of this process (server included in part 1), ms. */
  cpuMs: number;
  reconciles: number;
  stale: number;
  refused: number;
}

/** The transport of an informer whose watch events arrive `ms` late (in order). */
function lateWatch(lw: ListWatcher, ms: number): ListWatcher {
  return {
    ...(lw.supportsStreamingList === undefined ? {} : { supportsStreamingList: lw.supportsStreamingList }),
    list: (o) => lw.list(o),
    watch: (o) => lw.watch(o).pipe(delay(ms)),
  };
}

/** Part 1: one round of `mode` on the embedded server, in a fresh namespace. */
async function serverRound(client: KubeClient, mode: Mode, round: number, watchDelayMs: number, objects = OBJECTS, steps = STEPS): Promise<Sample> {
  const ns = `ryw-bench-${mode}-${round + 1}-${watchDelayMs}`;
  await client.objects({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cms = client.objects<ConfigMap>(CONFIG_MAPS, ns);
  for (let i = 0; i < objects; i++) await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { step: '0' } });
  const factory =
    watchDelayMs === 0
      ? new InformerFactory(client, { namespace: ns })
      : new InformerFactory((resource, scope) => lateWatch(client.listWatcher(resource, scope), watchDelayMs), { namespace: ns });
  const lastWritten = new Map<string, bigint>();
  const done = new Set<string>();
  const s: Sample = { seconds: 0, cpuMs: 0, reconciles: 0, stale: 0, refused: 0 };
  const ctrl = controller<ConfigMap>({
    name: ns,
    for: CONFIG_MAPS,
    informers: factory,
    client,
    concurrency: CONCURRENCY,
    ...(mode === 'off' ? { readYourWrites: false } : {}),
    reconcile: async (req, ctx) => {
      s.reconciles++;
      const object = ctx.object;
      if (object === undefined) return;
      const rv = BigInt(object.metadata?.resourceVersion ?? '0');
      if (rv < (lastWritten.get(req.name) ?? 0n)) s.stale++;
      const step = Number(object.data?.step ?? '0');
      if (step >= steps) return;
      try {
        const written = await ctx.objects().patch(
          req.name,
          [
            { op: 'test', path: '/metadata/resourceVersion', value: object.metadata?.resourceVersion },
            { op: 'replace', path: '/data/step', value: String(step + 1) },
          ],
          'json',
        );
        lastWritten.set(req.name, BigInt(written.metadata?.resourceVersion ?? '0'));
        if (step + 1 >= steps) done.add(req.name);
      } catch {
        s.refused++;
      }
      return { requeueAfter: 1 };
    },
  });
  const stop = new AbortController();
  const t0 = performance.now();
  const cpu = cpuClock();
  const run = ctrl.start(stop.signal);
  while (done.size < objects) await sleep(5);
  s.seconds = (performance.now() - t0) / 1_000;
  s.cpuMs = cpu();
  stop.abort();
  await run;
  await client.objects({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false }).delete(ns);
  return s;
}

/** Part 2: one round of `mode` without HTTP. */
async function fakeRound(mode: Mode, round: number): Promise<Sample> {
  const events$ = new Subject<InformerEvent<ConfigMap>>();
  const held = new Map<string, ConfigMap>();
  const initial: ConfigMap[] = [];
  for (let i = 0; i < OBJECTS_FAKE; i++) {
    const o: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: `cm-${i}`, resourceVersion: '1', uid: `u${i}` }, data: { step: '0' } };
    held.set(`cm-${i}`, o);
    initial.push(o);
  }
  let rv = 1;
  const connection = {
    request: (req: KubeRequest): Promise<unknown> => {
      const name = req.path.slice(req.path.lastIndexOf('/') + 1);
      const old = held.get(name) as ConfigMap;
      const next: ConfigMap = { ...old, metadata: { ...old.metadata, resourceVersion: String(++rv) }, data: { step: '1' } };
      held.set(name, next);
      setImmediate(() => events$.next({ type: 'update', old, object: next, resync: false }));
      return Promise.resolve(next);
    },
  } as unknown as KubeConnection;
  const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial, events$ });
  const s: Sample = { seconds: 0, cpuMs: 0, reconciles: 0, stale: 0, refused: 0 };
  let finished = 0;
  const ctrl = controller<ConfigMap>({
    name: `ryw-bench-fake-${mode}-${round + 1}`,
    for: source,
    client: new KubeClient(connection),
    concurrency: CONCURRENCY,
    ...(mode === 'off' ? { readYourWrites: false } : {}),
    reconcile: async (req, ctx) => {
      s.reconciles++;
      if (ctx.object?.data?.step === '1') {
        finished++;
        return;
      }
      await ctx.objects().patch(req.name, { data: { step: '1' } });
    },
  });
  const stop = new AbortController();
  const t0 = performance.now();
  const cpu = cpuClock();
  const run = ctrl.start(stop.signal);
  while (finished < OBJECTS_FAKE) await sleep(2);
  s.seconds = (performance.now() - t0) / 1_000;
  s.cpuMs = cpu();
  stop.abort();
  await run;
  return s;
}

function table(title: string, samples: Record<Mode, Sample[]>, objects: number): string[] {
  const perSec = (m: Mode) => samples[m].map((x) => x.reconciles / x.seconds);
  const cpuPer = (m: Mode) => samples[m].map((x) => (1_000 * x.cpuMs) / x.reconciles);
  const lines = [
    title,
    '',
    row(['read-your-writes', 'reconciles/s', 'CPU µs per reconcile', 'time to converge (s)', 'reconciles per object', 'stale reads', 'refused writes']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const m of ['on', 'off'] as const) {
    lines.push(
      row([
        m === 'on' ? 'on (default)' : 'off',
        summary(perSec(m)),
        summary(cpuPer(m)),
        summary(samples[m].map((x) => x.seconds), 2),
        fmt(median(samples[m].map((x) => x.reconciles / objects)), 2),
        fmt(median(samples[m].map((x) => x.stale))),
        fmt(median(samples[m].map((x) => x.refused))),
      ]),
    );
  }
  lines.push(
    '',
    `on ÷ off: reconciles/s ${ratio(median(perSec('on')), median(perSec('off')))}, CPU per reconcile ${ratio(median(cpuPer('on')), median(cpuPer('off')))}, time to converge ${ratio(median(samples.on.map((x) => x.seconds)), median(samples.off.map((x) => x.seconds)))}.`,
    '',
  );
  return lines;
}

export async function run(): Promise<string[]> {
  const server = await startApiServer();
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  const onServer: Record<Mode, Sample[]> = { on: [], off: [] };
  const lagging: Record<Mode, Sample[]> = { on: [], off: [] };
  const fake: Record<Mode, Sample[]> = { on: [], off: [] };
  try {
    // Warm-up (not counted): one round of each mode, so both run on optimised code.
    for (const mode of ['on', 'off'] as const) {
      await serverRound(client, mode, -1, 0);
      await fakeRound(mode, -1);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of (round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as Mode[]) {
        onServer[mode].push(await serverRound(client, mode, round, 0));
        lagging[mode].push(await serverRound(client, mode, round, WATCH_DELAY_MS, LAG_OBJECTS, LAG_STEPS));
        fake[mode].push(await fakeRound(mode, round));
      }
    }
  } finally {
    client.close();
    await server.close();
  }
  return [
    `Medians of ${ROUNDS} rounds per mode (min–max) after a warm-up round of each, the modes alternating; concurrency ${CONCURRENCY}. CPU is this process's (user + system), steadier than wall time on a shared machine.`,
    '',
    ...table(
      `**Embedded API server**, ${OBJECTS} ConfigMaps × ${STEPS} steps, each step a JSON patch guarded by the resourceVersion read, then \`requeueAfter: 1\`:`,
      onServer,
      OBJECTS,
    ),
    ...table(
      `**Embedded API server, watch events ${WATCH_DELAY_MS} ms late** (a lagging watch: the informer's watch stream delayed in the process), ${LAG_OBJECTS} ConfigMaps × ${LAG_STEPS} steps (a short queue: a deep one hides the lag behind its own wait), otherwise the same:`,
      lagging,
      LAG_OBJECTS,
    ),
    ...table(`**No HTTP** (fake source and connection, watch event on the next macrotask), ${OBJECTS_FAKE} objects written once each:`, fake, OBJECTS_FAKE),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await run()) console.log(line);
}
