/**
 * Sharded controller throughput at 1, 2 and 3 replicas. The embedded API server runs in a child
 * process (`support/server-process.ts`); each replica is a manager process of its own running the
 * sharding e2e fixture (`test/e2e/fixtures/sharded-replica.ts`, started through
 * `test/e2e/helpers/sharded-replicas.ts`): one shard of ring `e2e`, the manager's leader also
 * running the sharder, every reconcile an awaited delay of COST_MS (an API call's stand-in) and a
 * merge patch writing an annotation, at a fixed concurrency per replica, so the per-reconcile cost
 * bounds throughput and R replicas can at best do R times the work.
 *
 * Per replica count R, in a fresh namespace of OBJECTS ConfigMaps:
 * - cold start: from spawning the processes to every object labelled with the shard the hash ring
 *   chooses among the R shards and reconciled there (process start, lease acquisition, the
 *   sharder's labelling, handovers when a shard joins after the first, the reconciles);
 * - steady throughput: once assignment has settled, every ConfigMap is rewritten at once (new data,
 *   annotation removed) and the clock runs from the first reconcile to the moment every object has
 *   been reconciled once (its own patch queues a second reconcile behind the first pass; those are
 *   not counted). BUMPS such rounds per start, ROUNDS starts per R, taking turns over R.
 * Run alone: `npx tsx --conditions=source bench/sharded-throughput.ts`.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startShardedReplica, type ReplicaLine } from '../test/e2e/helpers/sharded-replicas.js';
import { spawnWorker, type Worker } from './support/rpc.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

const OBJECTS = Number(process.env.RXKUBE_BENCH_SHARDED_OBJECTS ?? 1200);
const ROUNDS = Number(process.env.RXKUBE_BENCH_SHARDED_ROUNDS ?? 3);
const BUMPS = 2;
const REPLICAS = [1, 2, 3] as const;
const COST_MS = 15;
const CONCURRENCY = 2;
const TIMINGS = { leaseMs: 4_000, renewMs: 3_000, retryMs: 1_000 };
const RING = 'e2e';
const ANNOTATION = 'e2e.rxkube.io/reconciled-by';
const QUIET_MS = 1_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** CPU time (user + system) of process `pid` in ms, from /proc (Linux); NaN elsewhere. */
function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return Number.NaN;
  }
}

interface Assignment {
  total: number;
  assigned: number;
  reconciled: number;
  perShard: Record<string, number>;
}

interface Sample {
  /** Spawn → first reconcile in any replica. */
  bootMs: number;
  /** Spawn → every object carries its final shard's label. */
  assignedMs: number;
  /** Spawn → every object reconciled by its final shard. */
  coldMs: number;
  /** User reconciles during the cold start, per object. */
  coldReconciles: number;
  /** Steady: objects reconciled once per second, one per bump. */
  steady: number[];
  /** Steady: wall time per reconcile on the largest shard (window × concurrency / its objects), one per bump. */
  perReconcileMs: number[];
  /** Time to rewrite every object in the server, one per bump. */
  touchMs: number[];
  /** Steady: replica and server CPU ms per object change (both passes), one per bump. */
  replicaCpu: number[];
  serverCpu: number[];
  /** Largest shard's share of the objects. */
  maxShare: number;
}

/** One start of R replicas on a fresh namespace: the cold start, then BUMPS steady rounds. */
async function once(server: Worker, env: NodeJS.ProcessEnv, replicas: number, round: number): Promise<Sample> {
  const namespace = `shard-bench-${round}-${replicas}`;
  const shards = Array.from({ length: replicas }, (_, i) => `s${i}`);
  await server.call('seedConfigMaps', { namespace, count: OBJECTS });
  const inflight = new Map<string, number>();
  let lastLine = performance.now();
  let firstStartAfter = Number.NaN;
  let since = 0;
  let reconciles = 0;
  const firstEnd = new Map<string, number>();
  const errors: string[] = [];
  const onLine = (line: ReplicaLine) => {
    if (line.type === 'ERROR') errors.push(line.line);
    if (line.type !== 'START' && line.type !== 'END') return;
    lastLine = performance.now();
    if (line.type === 'START') {
      inflight.set(line.shard, (inflight.get(line.shard) ?? 0) + 1);
      if (line.at >= since && !(firstStartAfter <= line.at)) firstStartAfter = line.at;
      return;
    }
    inflight.set(line.shard, (inflight.get(line.shard) ?? 0) - 1);
    if (line.at < since) return;
    reconciles++;
    if (!firstEnd.has(line.key)) firstEnd.set(line.key, line.at);
  };
  const children: ChildProcess[] = [];
  const status = (): Promise<Assignment> => server.call<Assignment>('assignment', { namespace, ring: RING, shards, annotation: ANNOTATION });
  const until = async (cond: () => boolean | Promise<boolean>, ms: number, what: string, every = 50) => {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (errors.length > 0) throw new Error(`sharded-throughput: ${errors.join('; ')}`);
      if (Date.now() > end) throw new Error(`sharded-throughput: timed out waiting for ${what} (${replicas} replicas)`);
      await sleep(every);
    }
  };
  const quiet = () => [...inflight.values()].every((n) => n === 0) && performance.now() - lastLine > QUIET_MS;
  const cpu = () => children.reduce((sum, c) => sum + processCpuMs(c.pid), 0);
  try {
    const t0 = Date.now();
    since = t0;
    for (const shard of shards) children.push(startShardedReplica(shard, namespace, { ...TIMINGS, concurrency: CONCURRENCY, costMs: COST_MS, env }, onLine));
    let assignedAt = 0;
    let last: Assignment | undefined;
    await until(
      async () => {
        last = await status();
        if (assignedAt === 0 && last.assigned === OBJECTS) assignedAt = Date.now();
        return last.assigned === OBJECTS && last.reconciled === OBJECTS;
      },
      180_000,
      'the cold start',
      250,
    );
    const coldAt = Date.now();
    await until(quiet, 120_000, 'the cold start to go quiet');
    const sample: Sample = {
      bootMs: firstStartAfter - t0,
      assignedMs: assignedAt - t0,
      coldMs: coldAt - t0,
      coldReconciles: reconciles / OBJECTS,
      steady: [],
      perReconcileMs: [],
      touchMs: [],
      replicaCpu: [],
      serverCpu: [],
      maxShare: Math.max(...Object.values(last?.perShard ?? {})) / OBJECTS,
    };
    for (let b = 0; b < BUMPS; b++) {
      since = Date.now();
      firstStartAfter = Number.NaN;
      reconciles = 0;
      firstEnd.clear();
      const cpu0 = { replicas: cpu(), server: processCpuMs(server.pid) };
      const touch = await server.call<{ ms: number }>('touchConfigMaps', { namespace, round: round * BUMPS + b + 1, strip: ANNOTATION });
      sample.touchMs.push(touch.ms);
      await until(() => firstEnd.size === OBJECTS, 120_000, 'every object reconciled once');
      const last = Math.max(...firstEnd.values());
      sample.steady.push((OBJECTS / (last - firstStartAfter)) * 1000);
      sample.perReconcileMs.push(((last - firstStartAfter) * CONCURRENCY) / (sample.maxShare * OBJECTS));
      await until(quiet, 120_000, 'the second passes');
      sample.replicaCpu.push((cpu() - cpu0.replicas) / OBJECTS);
      sample.serverCpu.push((processCpuMs(server.pid) - cpu0.server) / OBJECTS);
      const s = await status();
      if (s.assigned !== OBJECTS || s.reconciled !== OBJECTS) throw new Error(`sharded-throughput: assignment moved during a steady round (${JSON.stringify(s)})`);
    }
    return sample;
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
            c.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            c.kill('SIGTERM');
          }),
      ),
    );
  }
}

export async function run(): Promise<string[]> {
  const load0 = os.loadavg()[0] ?? 0;
  const dir = await mkdtemp(join(os.tmpdir(), 'rxkube-shard-bench-'));
  const server = spawnWorker('bench/support/server-process.ts');
  try {
    await server.call('start', { historyWindow: 10_000 });
    const kubeconfig = join(dir, 'kubeconfig');
    await server.call('kubeconfig', { path: kubeconfig });
    const env = { ...process.env, KUBECONFIG: kubeconfig, RXKUBE_LOG: 'off' };
    const samples = new Map<number, Sample[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of REPLICAS) {
        const s = await once(server, env, r, round);
        console.log(
          `  round ${round + 1}, ${r} replica(s): steady ${s.steady.map((x) => fmt(x)).join(', ')} objects/s; cold start ${fmt(s.coldMs)} ms (first reconcile ${fmt(s.bootMs)} ms, assigned ${fmt(s.assignedMs)} ms)`,
        );
        samples.set(r, [...(samples.get(r) ?? []), s]);
      }
    }
    const all = (r: number, f: (s: Sample) => number[]) => (samples.get(r) ?? []).flatMap(f);
    const steady = (r: number) => all(r, (s) => s.steady);
    const base = median(steady(1));
    const ceiling = (CONCURRENCY * 1000) / COST_MS;
    const speedUp = (r: number) => median(steady(r)) / base;
    const bound = (r: number) => 1 / median(all(r, (s) => [s.maxShare]));
    const cores = (r: number) => (median(steady(r)) * (median(all(r, (s) => s.replicaCpu)) + median(all(r, (s) => s.serverCpu)))) / 1000;
    const top = REPLICAS[REPLICAS.length - 1] as number;
    const coldSpeedUp = (r: number) => median(all(1, (s) => [s.coldMs])) / median(all(r, (s) => [s.coldMs]));
    const t1 = median(all(1, (s) => s.perReconcileMs));
    const tTop = median(all(top, (s) => s.perReconcileMs));
    const lines = [
      `${OBJECTS} ConfigMaps; R replica processes (manager + sharded controller, concurrency ${CONCURRENCY} each; the leader also runs`,
      `the sharder), every reconcile an awaited ${COST_MS} ms delay then a merge patch of an annotation, against the embedded API server in`,
      `a process of its own. The delay alone caps one replica at ${fmt(ceiling)} reconciles/s (concurrency / delay). Steady: every object`,
      `rewritten at once after assignment has settled, clock from the first reconcile to every object reconciled once. ${ROUNDS} starts ×`,
      `${BUMPS} rewrites per R, medians (min–max). "Balance bound": objects / the largest shard's objects (the run ends when the largest`,
      `shard is done). CPU per object change: both reconciles an object change causes (the write queues a second one), all replicas /`,
      `the server; "cores busy" is their sum at the median rate. "ms per reconcile": wall time per reconcile on the largest shard`,
      `(delay, patch, and waiting for a core); per run, speed-up = balance bound × 1 replica's ms per reconcile / R's.`,
      '',
      row(['replicas', 'steady reconciles/s (first pass)', 'speed-up vs 1 (ideal = R)', 'of ideal', 'balance bound', 'ms per reconcile', 'replica CPU ms/object', 'server CPU ms/object', 'cores busy']),
      row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
      ...REPLICAS.map((r) =>
        row([
          r,
          summary(steady(r)),
          ratio(median(steady(r)), base),
          `${((speedUp(r) / r) * 100).toFixed(0)} %`,
          `${bound(r).toFixed(2)}×`,
          summary(all(r, (s) => s.perReconcileMs), 1),
          summary(all(r, (s) => s.replicaCpu), 1),
          summary(all(r, (s) => s.serverCpu), 1),
          cores(r).toFixed(2),
        ]),
      ),
      '',
      'Cold start (shard-assignment warm-up included), from spawning the processes, in seconds:',
      '',
      row(['replicas', 'first reconcile', 'every object on its final shard', 'every object reconciled there', 'reconciles per object']),
      row(['---:', '---:', '---:', '---:', '---:']),
      ...REPLICAS.map((r) =>
        row([
          r,
          summary(all(r, (s) => [s.bootMs / 1000]), 1),
          summary(all(r, (s) => [s.assignedMs / 1000]), 1),
          summary(all(r, (s) => [s.coldMs / 1000]), 1),
          summary(all(r, (s) => [s.coldReconciles]), 1),
        ]),
      ),
      '',
      `Finding: steady throughput at ${top} replicas is ${speedUp(top).toFixed(2)}× one replica's (ideal ${top}×; ${((speedUp(top) / top) * 100).toFixed(0)} % of linear), at 2 replicas`,
      `${speedUp(2).toFixed(2)}×. The ceiling is balance (${bound(top).toFixed(2)}× at ${top}): the hash ring does not split ${OBJECTS} objects exactly evenly`,
      `(the largest of ${top} shards holds ${fmt(OBJECTS / bound(top))}), and the batch ends when the largest shard is done.`,
      ...(tTop > t1 * 1.05
        ? [
            `Below that ceiling: the largest shard took ${tTop.toFixed(1)} ms per reconcile against ${t1.toFixed(1)} ms for one replica (${COST_MS} ms of it the`,
            `delay); the processes keep ${cores(top).toFixed(2)} cores busy (replicas, the sharder, the server) on a ${os.cpus().length}-CPU machine shared with`,
            `other work (load below), so timers and patches wait for a core.`,
          ]
        : [
            `Per-reconcile time did not grow (${tTop.toFixed(1)} ms on the largest shard against ${t1.toFixed(1)} ms for one replica, ${COST_MS} ms of it the delay;`,
            `the processes keep ${cores(top).toFixed(2)} cores busy on a ${os.cpus().length}-CPU machine): the replicas do not slow each other down, and what is`,
            `missing to ${top}× is the balance.`,
          ]),
      `The sharder writes nothing on the steady path (it sees every change and finds the label right).`,
      ...(coldSpeedUp(top) >= 1.5
        ? [
            `The cold start divides too (${coldSpeedUp(2).toFixed(2)}× faster at 2 replicas, ${coldSpeedUp(top).toFixed(2)}× at ${top}): the shard Leases appear one after another and`,
            `the first live shard is assigned every object, but the drains that hand objects to the others go ahead of its queued`,
            `reconciles (drain acknowledgements have a higher work-queue priority), so the handover does not wait for its backlog.`,
          ]
        : [
            `The cold start does not divide like the steady work (${coldSpeedUp(top).toFixed(2)}× faster at ${top} replicas): the shard Leases appear one after another,`,
            `the first live shard is assigned every object, and the others get theirs only as it acknowledges the drains.`,
          ]),
      '',
      `Load: ${os.cpus().length} CPUs, 1-minute load average ${load0.toFixed(1)} before and ${(os.loadavg()[0] ?? 0).toFixed(1)} after this section.`,
    ];
    return lines;
  } finally {
    await server.call('close').catch(() => undefined);
    await server.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await run()) console.log(line);
}
