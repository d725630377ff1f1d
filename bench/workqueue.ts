/**
 * Work queue throughput: adds per second (distinct keys, heavy duplication) and reconciles per
 * second with a no-op reconcile at concurrency 1 and 8. Each figure is the median of several runs,
 * with the min–max spread. Run: `npx tsx bench/workqueue.ts`.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { NEVER, Subject } from 'rxjs';
import { workQueue } from '../src/workqueue/work-queue.js';
import type { Reconciler } from '../src/workqueue/reconciler.js';
import type { WorkQueueInput } from '../src/workqueue/request.js';

const RUNS = 9;
const KEYS = 10_000;

function keys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `ns-${i % 97}/obj-${i}`);
}

/**
 * Adds `inputs` while the single worker is stuck on the first key (pure queue cost), into
 * `repeat` fresh queues; returns adds per second.
 */
function timeAdds(inputs: readonly WorkQueueInput[], repeat = 1): number {
  let ms = 0;
  for (let r = 0; r < repeat; r++) {
    const input = new Subject<WorkQueueInput>();
    const sub = input.pipe(workQueue(() => NEVER)).subscribe();
    const t0 = performance.now();
    for (const k of inputs) input.next(k);
    ms += performance.now() - t0;
    sub.unsubscribe();
  }
  return ((inputs.length * repeat) / ms) * 1000;
}

/** Reconciles every key once with `reconcile`; resolves with reconciles per second. */
function timeReconciles(ks: readonly string[], concurrency: number, reconcile: Reconciler): Promise<number> {
  return new Promise((resolve, reject) => {
    const input = new Subject<string>();
    let done = 0;
    const t0 = performance.now();
    input.pipe(workQueue(reconcile, { concurrency, drain: true })).subscribe({
      next: () => done++,
      error: reject,
      complete: () => resolve((done / (performance.now() - t0)) * 1000),
    });
    for (const k of ks) input.next(k);
    input.complete();
  });
}

async function measure(name: string, once: () => number | Promise<number>): Promise<string> {
  await once(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await once());
  xs.sort((a, b) => a - b);
  const median = xs[Math.floor(xs.length / 2)]!;
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  return `${name.padEnd(52)} ${fmt(median).padStart(12)} /s  (min ${fmt(xs[0]!)}, max ${fmt(xs.at(-1)!)}, ${RUNS} runs)`;
}

/** Runs the work queue benchmarks; returns printable lines. */
export async function run(): Promise<string[]> {
  const distinct = keys(KEYS);
  const duplicated = Array.from({ length: 50 * KEYS }, (_, i) => distinct[(i * 7919) % KEYS]!);
  const requests = distinct.map((k) => {
    const [namespace, name] = k.split('/') as [string, string];
    return { namespace, name };
  });
  const many = keys(50_000);
  // sync no-op: each add is reconciled at once (the queue stays short); async no-op: the keys
  // queue up behind the running ones and are drained after the input completes.
  const noop: Reconciler = () => undefined;
  const asyncNoop: Reconciler = async () => undefined;
  const lines = [`workqueue (node ${process.version}, median of ${RUNS} runs after a warm-up)`];
  lines.push(await measure(`adds: ${KEYS.toLocaleString('en-US')} distinct string keys`, () => timeAdds(distinct, 10)));
  lines.push(await measure(`adds: ${KEYS.toLocaleString('en-US')} distinct Request objects`, () => timeAdds(requests, 10)));
  lines.push(
    await measure(`adds: ${duplicated.length.toLocaleString('en-US')} over ${KEYS.toLocaleString('en-US')} keys (50× dup)`, () =>
      timeAdds(duplicated),
    ),
  );
  for (const c of [1, 8]) {
    lines.push(await measure(`reconciles: sync no-op, concurrency ${c} (50k keys)`, () => timeReconciles(many, c, noop)));
  }
  for (const c of [1, 8]) {
    lines.push(await measure(`reconciles: async no-op, concurrency ${c} (50k keys)`, () => timeReconciles(many, c, asyncNoop)));
  }
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = performance.now();
  for (const line of await run()) console.log(line);
  console.log(`(took ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
