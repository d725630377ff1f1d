/**
 * Watch throughput: events per second from the server to a subscriber's handler, for one informer
 * on 10k realistic pods under a stream of modifications, for rxkube's informer,
 * @kubernetes/client-node's `makeInformer` and the floor (the same watch request, each line
 * `JSON.parse`d and counted), plus the server alone (lines counted, not parsed).
 *
 * So that the server is not the bottleneck, the modifications are queued on frozen watches
 * (`faults.freezeWatches()`), where they are already serialised; on `unfreezeWatches()` the server
 * only writes them, and the client receives a sustained stream as fast as it can read it (TCP
 * backpressure throttles the server). The rate is measured in the contender's process, from its
 * handler's first event to its last.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { ContenderName } from './support/contenders.js';
import { spawnWorker, type Worker } from './support/rpc.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

const OBJECTS = 10_000;
const EVENTS = 30_000;
/** `RXKUBE_BENCH_WATCH_RUNS=1` for a brief run. */
const RUNS = Number(process.env.RXKUBE_BENCH_WATCH_RUNS ?? 3);
const BURSTS = 2;
const ALL_CONTENDERS: readonly ContenderName[] = ['server', 'floor', 'floor-map', 'rxkube', 'rxkube-fetch', 'client-node'];
/** `RXKUBE_BENCH_WATCH_CONTENDERS=rxkube,rxkube-fetch` runs only these. */
const ONLY = process.env.RXKUBE_BENCH_WATCH_CONTENDERS?.split(',');
const CONTENDERS = ALL_CONTENDERS.filter((n) => ONLY === undefined || ONLY.includes(n));
const LABEL: Record<string, string> = {
  server: 'server alone (lines counted, not parsed)',
  floor: 'floor (same watch + JSON.parse per line)',
  'floor-map': 'floor + Map cache (objects retained)',
  rxkube: 'rxkube informer',
  'rxkube-fetch': 'rxkube informer over fetch (fetchClient)',
  'client-node': '@kubernetes/client-node makeInformer',
};

/**
 * Syncs a contender in a fresh process, then, `bursts` times, measures how fast `events` queued
 * modifications reach its handler.
 */
export async function watchRuns(
  server: Worker,
  url: string,
  name: ContenderName,
  events: number,
  objects: number,
  bursts: number,
): Promise<Array<{ rate: number; cpuUsPerEvent: number }>> {
  const w = spawnWorker('bench/support/contender-process.ts');
  const out: Array<{ rate: number; cpuUsPerEvent: number }> = [];
  try {
    await w.call('sync', { name, url, expect: objects });
    for (let i = 0; (await server.call<number>('openWatches')) < 1; i++) {
      if (i > 500) throw new Error(`${name}: no watch opened`);
      await sleep(10);
    }
    for (let b = 0; b < bursts; b++) {
      await w.call('arm', { count: events, name });
      await server.call('burst', { events, objects });
      await server.call('unfreeze');
      const { ms, cpuMs } = await w.call<{ events: number; ms: number; cpuMs: number }>('wait');
      out.push({ rate: ((events - 1) / ms) * 1000, cpuUsPerEvent: (cpuMs * 1000) / (events - 1) });
    }
    return out;
  } finally {
    await w.kill();
    await server.call('unfreeze');
  }
}

export async function run(): Promise<string[]> {
  const server = spawnWorker('bench/support/server-process.ts');
  const rates = new Map<ContenderName, number[]>();
  const cpus = new Map<ContenderName, number[]>();
  try {
    const { url } = await server.call<{ url: string }>('start', {});
    await server.call('seed', { from: 0, to: OBJECTS });
    for (let r = 0; r < RUNS; r++) {
      for (const name of CONTENDERS) {
        for (const { rate, cpuUsPerEvent } of await watchRuns(server, url, name, EVENTS, OBJECTS, BURSTS)) {
          rates.set(name, [...(rates.get(name) ?? []), rate]);
          cpus.set(name, [...(cpus.get(name) ?? []), cpuUsPerEvent]);
        }
      }
    }
  } finally {
    await server.call('close').catch(() => undefined);
    await server.kill();
  }
  const med = (name: ContenderName) => median(rates.get(name) ?? []);
  const cpu = (name: ContenderName) => median(cpus.get(name) ?? []);
  return [
    `${fmt(EVENTS)} MODIFIED events (~3.3 KB each) over ${fmt(OBJECTS)} cached pods, one watch, a no-op handler counting events.`,
    `Measured in the contender's process from its handler's first event to its last: events/s (wall clock) and CPU time`,
    `per event (user + system, all threads of the process, so GC is included; less sensitive to other load on the`,
    `machine than wall clock). Median (min–max) of ${RUNS * BURSTS} bursts: ${RUNS} fresh processes × ${BURSTS} bursts each.`,
    '',
    row(['contender', 'events/s', 'CPU µs per event']),
    row(['---', '---', '---']),
    ...CONTENDERS.map((name) => row([LABEL[name] ?? name, summary(rates.get(name) ?? []), summary(cpus.get(name) ?? [], 1)])),
    '',
    row(['ratio (of medians, time per event)', 'wall clock', 'CPU']),
    row(['---', '---', '---']),
    row(['rxkube / floor (target ≤ 1.50×)', ratio(med('floor'), med('rxkube')), ratio(cpu('rxkube'), cpu('floor'))]),
    row(['rxkube / (floor + Map cache)', ratio(med('floor-map'), med('rxkube')), ratio(cpu('rxkube'), cpu('floor-map'))]),
    row(['rxkube over fetch / rxkube over node:http', ratio(med('rxkube'), med('rxkube-fetch')), ratio(cpu('rxkube-fetch'), cpu('rxkube'))]),
    row(['client-node / rxkube', ratio(med('rxkube'), med('client-node')), ratio(cpu('client-node'), cpu('rxkube'))]),
    row(['floor / server alone', ratio(med('server'), med('floor')), ratio(cpu('floor'), cpu('server'))]),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
