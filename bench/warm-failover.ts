/**
 * Failover to first reconcile, with and without warm standbys (docs/leader-election.md, "Warm
 * standbys"), on a real kube-apiserver: the one in KUBECONFIG, else one started with the shared
 * `kube-apiserver/start.sh` (next to the repository, or RXKUBE_E2E_SHARED) and stopped afterwards.
 *
 * Per mode (`warmup: false`, then `warmup: true`), in a fresh namespace of OBJECTS ConfigMaps,
 * CANDIDATES manager processes run the warm-standby fixture (`test/e2e/fixtures/warm-candidate.ts`:
 * an informer factory as a cache runnable, one ConfigMap controller that only counts its
 * reconciles, lease 4 s / renew 3 s / retry 1 s). Once the leader has reconciled every object and
 * every standby's caches synced (plus SETTLE_MS), the leader is SIGKILLed, CANDIDATES - 1 times in
 * a row. Per failover: kill → the new leader leading (the lease expiry and retry dominate it, the
 * same in both modes), leading → its first reconcile, leading → every object reconciled once.
 * Run alone: `npx tsx --conditions=source bench/warm-failover.ts`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { KubeObject } from '../src/api/kube-object.js';
import type { ResourceType } from '../src/api/resource.js';
import { KubeClient } from '../src/client/kube-client.js';
import { fmt, row, summary } from './support/stats.js';

const OBJECTS = Number(process.env.RXKUBE_BENCH_WARM_OBJECTS ?? 2000);
const CANDIDATES = Number(process.env.RXKUBE_BENCH_WARM_CANDIDATES ?? 3);
const TIMINGS = { leaseMs: 4_000, renewMs: 3_000, retryMs: 1_000 };
const SETTLE_MS = 2_000;
const CREATE_INFLIGHT = 20;
const FIXTURE = fileURLToPath(new URL('../test/e2e/fixtures/warm-candidate.ts', import.meta.url));
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const CONFIG_MAPS: ResourceType = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One failover, in ms. */
interface Failover {
  readonly leading: number;
  readonly first: number;
  readonly all: number;
}

interface Candidate {
  readonly identity: string;
  readonly child: ChildProcess;
  standby?: number;
  leading?: number;
  first?: number;
  all?: number;
}

/** The cluster: KUBECONFIG, else a kube-apiserver started here (with its stop). */
function cluster(): { kubeconfig: string; stop?: () => void } {
  const given = process.env.KUBECONFIG;
  if (given !== undefined && given !== '') return { kubeconfig: given };
  const repoRoot = resolve(import.meta.dirname, '..');
  const shared = process.env.RXKUBE_E2E_SHARED ?? join(repoRoot, '..', 'shared');
  const start = join(shared, 'kube-apiserver', 'start.sh');
  if (!existsSync(start)) throw new Error(`warm-failover: set KUBECONFIG, or RXKUBE_E2E_SHARED to the folder holding kube-apiserver/start.sh (looked in ${shared})`);
  const dir = mkdtempSync(join(os.tmpdir(), 'rxkube-warm-bench-'));
  execFileSync('bash', [start, dir], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 900_000 });
  return { kubeconfig: join(dir, 'kubeconfig'), stop: () => execFileSync('bash', [join(shared, 'kube-apiserver', 'stop.sh'), dir], { stdio: 'ignore' }) };
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`warm-failover: timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function seed(client: KubeClient, ns: string): Promise<void> {
  await client.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cms = client.objects(CONFIG_MAPS, ns);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < OBJECTS; i = next++) {
      await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i), pad: 'x'.repeat(200) } } as KubeObject);
    }
  };
  await Promise.all(Array.from({ length: CREATE_INFLIGHT }, worker));
}

/** Runs CANDIDATES processes in `ns` and kills the leader CANDIDATES - 1 times. */
async function failovers(kubeconfig: string, ns: string, warmup: boolean): Promise<Failover[]> {
  const env = { ...process.env, KUBECONFIG: kubeconfig, RXKUBE_LOG: 'off' };
  const candidates: Candidate[] = [];
  const results: Failover[] = [];
  try {
    for (let i = 0; i < CANDIDATES; i++) {
      const identity = `${warmup ? 'warm' : 'cold'}-${i}`;
      const args = [identity, warmup ? '1' : '0', ns, String(OBJECTS), '0', String(TIMINGS.leaseMs), String(TIMINGS.renewMs), String(TIMINGS.retryMs)];
      const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', FIXTURE, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
      const c: Candidate = { identity, child };
      candidates.push(c);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const [what, , at = ''] = line.split(' ');
        if (what === 'STANDBY') c.standby = Number(at);
        else if (what === 'LEADING') c.leading = Number(at);
        else if (what === 'FIRST') c.first = Number(at);
        else if (what === 'ALL') c.all = Number(at);
        else if (what === 'ERROR') console.error(`  ${line}`);
      });
    }
    const alive = () => candidates.filter((c) => c.child.exitCode === null && c.child.signalCode === null && !c.child.killed);
    await until(() => candidates.some((c) => c.all !== undefined) && candidates.every((c) => c.standby !== undefined), 120_000, 'the first leader and the standbys');
    for (let k = 0; k < CANDIDATES - 1; k++) {
      await sleep(SETTLE_MS);
      const leader = alive().find((c) => c.leading !== undefined);
      if (leader === undefined) throw new Error('warm-failover: no leader');
      const killedAt = Date.now();
      leader.child.kill('SIGKILL');
      await until(() => alive().some((c) => c.all !== undefined), 60_000, 'the new leader to reconcile every object');
      const next = alive().find((c) => c.all !== undefined) as Candidate;
      results.push({ leading: (next.leading ?? NaN) - killedAt, first: (next.first ?? NaN) - (next.leading ?? NaN), all: (next.all ?? NaN) - (next.leading ?? NaN) });
      console.log(`  ${warmup ? 'warm' : 'cold'}: ${leader.identity} killed, ${next.identity} leading after ${fmt(results.at(-1)!.leading)} ms, first reconcile +${fmt(results.at(-1)!.first)} ms, all ${OBJECTS} +${fmt(results.at(-1)!.all)} ms`);
    }
  } finally {
    for (const c of candidates) c.child.kill('SIGKILL');
  }
  return results;
}

export async function run(): Promise<string[]> {
  const { kubeconfig, stop } = cluster();
  const client = KubeClient.fromFile(kubeconfig);
  const samples: Record<'cold' | 'warm', Failover[]> = { cold: [], warm: [] };
  try {
    for (const mode of ['cold', 'warm'] as const) {
      const ns = `warm-bench-${mode}-${Date.now().toString(36)}`;
      await seed(client, ns);
      try {
        samples[mode] = await failovers(kubeconfig, ns, mode === 'warm');
      } finally {
        await client.objects(NAMESPACES).delete(ns).catch(() => undefined);
      }
    }
  } finally {
    client.close();
    stop?.();
  }
  const line = (mode: 'cold' | 'warm', label: string) => {
    const s = samples[mode];
    return row([label, summary(s.map((f) => f.leading)), summary(s.map((f) => f.first)), summary(s.map((f) => f.leading + f.first)), summary(s.map((f) => f.all))]);
  };
  return [
    `${OBJECTS} ConfigMaps, ${CANDIDATES} manager processes, lease ${TIMINGS.leaseMs / 1000} s / renew ${TIMINGS.renewMs / 1000} s / retry ${TIMINGS.retryMs / 1000} s; the leader SIGKILLed ${CANDIDATES - 1} times per mode; ms, median (min–max):`,
    '',
    row(['standby', 'kill → leading', 'leading → first reconcile', 'kill → first reconcile', `leading → all ${OBJECTS} reconciled`]),
    row(['---', '---:', '---:', '---:', '---:']),
    line('cold', 'cold (`warmup: false`)'),
    line('warm', 'warm (`warmup: true`)'),
    '',
    '- Both modes sync their caches before campaigning (the informer factory is a cache runnable); a cold standby registers on its sources and replays the cache into its queue only once leading, a warm one did that while standing by and starts its workers at once.',
    '- Kill → leading is the lease expiry plus a jittered retry and is the same in both modes; what warm-up removes is in the "leading →" columns.',
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await run()) console.log(line);
}
