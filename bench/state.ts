/**
 * `state$` benchmark: what an immutable snapshot of the cache costs at 10k and 100k cached
 * objects. Three measurements, all in CPU time of this process (user + system, so GC counts),
 * which a busy machine disturbs far less than wall clock:
 * - the snapshot work itself, as `state$` does it: per change one key + one persistent-map write,
 *   per batch one `build()` (an O(1) seal), for batches of 1 and 100 changes;
 * - end to end: an informer with a `state$` subscriber against the same informer with an
 *   `events$` subscriber (same source and changes, virtual-time scheduler flushed once per batch);
 * - the naive alternative: copying the cache into a fresh `Map` per batch.
 * `export run()` returns printable lines; `npx tsx --conditions=source bench/state.ts` runs it directly.
 */
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { pathToFileURL } from 'node:url';
import type { KubeObject, UnstructuredObject } from '../src/api/kube-object.js';
import { deletionHandlingKey } from '../src/cache/keys.js';
import { PersistentMapBuilder } from '../src/cache/persistent-map.js';
import { sharedInformer } from '../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../src/reflector/reflector-event.js';

const RUNS = 5;

function pod(i: number, rv: number): UnstructuredObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 100}`, uid: `uid-${i}`, resourceVersion: String(rv), labels: { app: `app-${i % 500}` } },
    spec: { nodeName: `node-${i % 200}` },
    status: { phase: 'Running' },
  };
}

/** CPU time (µs) of `fn`. */
function cpu(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const d = process.cpuUsage(start);
  return d.user + d.system;
}

let sink = 0;

/** The snapshot work alone: build the first snapshot of n objects, then `rounds` batches of `batch` changes. */
function core(n: number, batch: number, rounds: number): { initialMs: number; perBatchUs: number } {
  const list = Array.from({ length: n }, (_, i) => pod(i, 1));
  const updates = Array.from({ length: rounds * batch }, (_, j) => pod((j * 7919) % n, 2 + j));
  const builder = new PersistentMapBuilder<KubeObject>();
  const initial = cpu(() => {
    for (const o of list) builder.set(deletionHandlingKey(o), o);
    sink += builder.build().size;
  });
  let j = 0;
  const batches = cpu(() => {
    for (let r = 0; r < rounds; r++) {
      for (let b = 0; b < batch; b++) {
        const o = updates[j++] as KubeObject;
        builder.set(deletionHandlingKey(o), o);
      }
      sink += builder.build().size;
    }
  });
  return { initialMs: initial / 1000, perBatchUs: batches / rounds };
}

/** An informer with a `state$` (or only an `events$`) subscriber: CPU µs per batch of changes, including delivery. */
function informer(n: number, batch: number, rounds: number, withState: boolean): number {
  const scheduler = new VirtualTimeScheduler();
  const src = new Subject<ReflectorEvent>();
  const inf = sharedInformer(src, { scheduler, transform: null, freeze: 'none' });
  const list = Array.from({ length: n }, (_, i) => pod(i, 1));
  const updates = Array.from({ length: rounds * batch }, (_, j) => pod((j * 7919) % n, 2 + j));
  let snapshots = 0;
  const sub = withState ? inf.state$.subscribe((s) => (snapshots++, (sink += s.size))) : inf.events$.subscribe(() => sink++);
  src.next({ type: 'replace', items: list, resourceVersion: '1' });
  scheduler.flush();
  let j = 0;
  const us = cpu(() => {
    for (let r = 0; r < rounds; r++) {
      for (let b = 0; b < batch; b++) src.next({ type: 'modified', object: updates[j++] as KubeObject });
      scheduler.flush();
    }
  });
  sub.unsubscribe();
  if (withState && snapshots !== rounds + 1) throw new Error(`bench sanity check failed: ${snapshots} snapshots for ${rounds} batches`);
  return us / rounds;
}

/** The naive alternative: copying the cache into a fresh Map for every batch. */
function copyPerBatchUs(n: number, rounds: number): number {
  const items = new Map<string, KubeObject>();
  for (let i = 0; i < n; i++) items.set(`ns-${i % 100}/pod-${i}`, pod(i, 1));
  return cpu(() => {
    for (let r = 0; r < rounds; r++) sink += new Map(items).size;
  }) / rounds;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}
const cell = (xs: number[], digits = 0) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

export async function run(): Promise<string[]> {
  core(10_000, 10, 200); // warm-up
  informer(10_000, 10, 200, true);
  informer(10_000, 10, 200, false);
  const lines = [
    `CPU time, median of ${RUNS} runs (min–max). "Snapshot work" is what \`state$\` adds per change and per emitted`,
    'snapshot (persistent-map writes and one seal); "informer" compares whole informers (freeze \'none\', no transform)',
    'with a `state$` subscriber and with an `events$` subscriber, so it includes delivering the events.',
    '',
    '| cached objects | first snapshot: build, ms | snapshot work per batch of 1 change, µs | … of 100 changes, µs | informer per batch of 100: events$ → state$, µs | copying the cache per batch (new Map), µs |',
    '|---|---|---|---|---|---|',
  ];
  for (const n of [10_000, 100_000]) {
    const init: number[] = [];
    const one: number[] = [];
    const hundred: number[] = [];
    const base: number[] = [];
    const state: number[] = [];
    const copy: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const c1 = core(n, 1, 5000);
      const c100 = core(n, 100, 200);
      init.push(c1.initialMs);
      one.push(c1.perBatchUs);
      hundred.push(c100.perBatchUs);
      // Alternate which goes first, so drifting load hits both alike.
      if (r % 2 === 0) {
        base.push(informer(n, 100, 300, false));
        state.push(informer(n, 100, 300, true));
      } else {
        state.push(informer(n, 100, 300, true));
        base.push(informer(n, 100, 300, false));
      }
      copy.push(copyPerBatchUs(n, n >= 100_000 ? 10 : 50));
    }
    lines.push(
      `| ${n.toLocaleString('en')} | ${cell(init, 1)} | ${cell(one, 1)} | ${cell(hundred)} | ${median(base).toFixed(0)} → ${median(state).toFixed(0)} | ${cell(copy)} |`,
    );
  }
  if (sink < 0) console.log(sink);
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
