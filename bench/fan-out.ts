/**
 * Fan-out: one shared informer with 1, 10 and 100 subscribers (each a no-op handler counting
 * events); the cost of delivering the initial list and a stream of updates, and the cost per
 * extra subscriber. The informer is fed from an in-process source (pre-built `ReflectorEvent`s,
 * realistic pods), so the figures are the informer's own work (transform, freeze, cache,
 * per-subscriber delivery), without HTTP or JSON parsing.
 */
import { pathToFileURL } from 'node:url';
import { Subject } from 'rxjs';
import type { KubeObject } from '../src/api/kube-object.js';
import { sharedInformer } from '../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../src/reflector/reflector-event.js';
import { realisticPod } from './support/pods.js';
import { cpuClock, fmt, forceGc, median, row, summary } from './support/stats.js';

const OBJECTS = 5_000;
const UPDATES = 20_000;
const RUNS = 5;
const FANOUT = [1, 10, 100] as const;

function pod(i: number, gen: number, rv: number): KubeObject {
  const p = realisticPod(i, gen);
  return { ...p, metadata: { ...p.metadata, resourceVersion: String(rv) } };
}

/** Fresh objects for one run (cached objects get frozen, so they are not reused). */
function workload(): { list: KubeObject[]; updates: KubeObject[] } {
  const list = Array.from({ length: OBJECTS }, (_, i) => pod(i, 0, 1 + i));
  const updates = Array.from({ length: UPDATES }, (_, e) => pod(e % OBJECTS, 1 + Math.floor(e / OBJECTS), 1 + OBJECTS + e));
  return { list, updates };
}

function once(subscribers: number): { syncMs: number; updateMs: number } {
  const { list, updates } = workload();
  const source = new Subject<ReflectorEvent>();
  const informer = sharedInformer(source, { name: 'fan-out' });
  let delivered = 0;
  const subs = Array.from({ length: subscribers }, () => informer.events$.subscribe(() => delivered++));
  forceGc(); // no step pays for the garbage of the one before
  let t = cpuClock();
  source.next({ type: 'replace', items: list, resourceVersion: String(OBJECTS) });
  const syncMs = t();
  if (delivered !== OBJECTS * subscribers || !informer.hasSynced()) throw new Error(`fan-out: ${delivered} initial deliveries`);
  t = cpuClock();
  for (const object of updates) source.next({ type: 'modified', object });
  const updateMs = t();
  if (delivered !== (OBJECTS + UPDATES) * subscribers) throw new Error(`fan-out: ${delivered} deliveries`);
  for (const s of subs) s.unsubscribe();
  return { syncMs, updateMs };
}

export async function run(): Promise<string[]> {
  once(10); // warm-up
  const results = new Map<number, Array<{ syncMs: number; updateMs: number }>>();
  for (let r = 0; r < RUNS; r++) {
    for (const k of FANOUT) results.set(k, [...(results.get(k) ?? []), once(k)]);
  }
  const usPerUpdate = (k: number) => (results.get(k) ?? []).map((x) => (x.updateMs * 1000) / UPDATES);
  const usPerInitial = (k: number) => (results.get(k) ?? []).map((x) => (x.syncMs * 1000) / OBJECTS);
  const base = { update: median(usPerUpdate(1)), initial: median(usPerInitial(1)) };
  const lines = [
    `One informer (default options: managedFields dropped, deep freeze), fed in-process: a list of ${fmt(OBJECTS)} pods, then`,
    `${fmt(UPDATES)} modifications; k subscribers, each a synchronous no-op handler. CPU µs per event (all subscribers served),`,
    `median (min–max) of ${RUNS} runs; "per extra subscriber" = (µs at k − µs at 1) / (k − 1).`,
    '',
    row(['subscribers', 'initial list: µs per object', 'updates: µs per event', 'updates/s', 'per extra subscriber: µs per event']),
    row(['---', '---', '---', '---', '---']),
  ];
  for (const k of FANOUT) {
    const upd = median(usPerUpdate(k));
    lines.push(
      row([
        String(k),
        summary(usPerInitial(k), 2),
        summary(usPerUpdate(k), 2),
        fmt(1e6 / upd),
        k === 1 ? '–' : `${fmt((upd - base.update) / (k - 1), 3)} (initial list: ${fmt((median(usPerInitial(k)) - base.initial) / (k - 1), 3)})`,
      ]),
    );
  }
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
