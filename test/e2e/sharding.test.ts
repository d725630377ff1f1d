/**
 * Tier 3: a sharded controller in three manager processes on a real kube-apiserver (each process
 * one shard of ring `e2e`, the manager's leader also running the sharder). ConfigMaps (300, or
 * RXKUBE_E2E_SHARDED_OBJECTS, e.g. 2000 locally) are assigned by the sharder and reconciled by
 * their shard, which writes its name into an annotation. Checked from the processes' logs of
 * reconcile start and end: every object reconciled by its shard, never by two processes at once;
 * every cache about a third of the objects; a SIGKILLed shard's objects move within the lease
 * duration plus a few seconds; when it comes back, objects are drained and handed back.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { K8s } from '../../src/index.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { drainLabel, shardLabel } from '../../src/sharding/shard-ring.js';
import { startShardedReplica } from './helpers/sharded-replicas.js';

const hasCluster = !!process.env.KUBECONFIG && !!process.env.RXKUBE_E2E_DIR;
const OBJECTS = Number(process.env.RXKUBE_E2E_SHARDED_OBJECTS ?? 300);
const LEASE = 4_000;
const RENEW = 3_000;
const RETRY = 1_000;
const ANNOTATION = 'e2e.rxkube.io/reconciled-by';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Interval {
  shard: string;
  start: number;
  end: number;
}

describe.skipIf(!hasCluster)('sharded controller in three processes on a real kube-apiserver', () => {
  const ns = `shard-e2e-${randomBytes(3).toString('hex')}`;
  const children = new Map<string, ChildProcess>();
  const client = hasCluster ? KubeClient.fromDefault() : undefined;
  const open = new Map<string, { shard: string; start: number }>(); // `${shard} ${key}` → running
  const intervals = new Map<string, Interval[]>();
  const caches = new Map<string, number>();
  const errors: string[] = [];
  let leader = '';

  afterAll(async () => {
    for (const c of children.values()) c.kill('SIGKILL');
    await client?.objects(resources.namespaces).delete(ns).catch(() => undefined);
    client?.close();
  });

  const start = (shard: string) => {
    const child = startShardedReplica(shard, ns, { leaseMs: LEASE, renewMs: RENEW, retryMs: RETRY }, (line) => {
      if (line.type === 'START') open.set(`${line.shard} ${line.key}`, { shard: line.shard, start: line.at });
      else if (line.type === 'END') {
        const run = open.get(`${line.shard} ${line.key}`);
        open.delete(`${line.shard} ${line.key}`);
        if (run !== undefined) intervals.set(line.key, [...(intervals.get(line.key) ?? []), { shard: line.shard, start: run.start, end: line.at }]);
      } else if (line.type === 'CACHE') caches.set(line.shard, line.size);
      else if (line.type === 'LEADING') leader = line.shard;
      else if (line.type === 'ERROR') errors.push(line.line);
    });
    children.set(shard, child);
  };
  const kill = (shard: string, at: number) => {
    children.get(shard)?.kill('SIGKILL');
    children.delete(shard);
    caches.delete(shard);
    for (const [k, run] of [...open]) {
      if (run.shard !== shard) continue;
      const key = k.slice(shard.length + 1);
      intervals.set(key, [...(intervals.get(key) ?? []), { shard, start: run.start, end: at }]);
      open.delete(k);
    }
  };
  const list = async (): Promise<K8s.ConfigMap[]> => (await client!.objects(resources.configMaps, ns).list()).items as K8s.ConfigMap[];
  const settledOn = async (shards: readonly string[]): Promise<boolean> => {
    const items = await list();
    return (
      items.length === OBJECTS &&
      items.every((o) => {
        const labels = o.metadata?.labels ?? {};
        const s = labels[shardLabel('e2e')];
        return s !== undefined && shards.includes(s) && labels[drainLabel('e2e')] === undefined && o.metadata?.annotations?.[ANNOTATION] === s;
      })
    );
  };
  const until = async (cond: () => Promise<boolean> | boolean, ms: number, what: string) => {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(500);
    }
  };

  it('assigns, divides, never reconciles an object in two processes at once, moves on a kill and rebalances', async () => {
    await client!.objects(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const cms = client!.objects(resources.configMaps, ns);
    for (let i = 0; i < OBJECTS; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, OBJECTS - i) }, (_, j) => cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}`, namespace: ns }, data: { i: String(i + j) } })),
      );
    }
    const t0 = Date.now();
    for (const s of ['s0', 's1', 's2']) start(s);
    await until(() => settledOn(['s0', 's1', 's2']), 60_000 + OBJECTS * 60, 'every object assigned and reconciled by its shard');
    console.log(`sharding e2e: ${OBJECTS} objects assigned and reconciled in ${Date.now() - t0} ms`);
    await until(() => ['s0', 's1', 's2'].reduce((n, s) => n + (caches.get(s) ?? 0), 0) === OBJECTS, 10_000, 'caches to add up');
    const sizes = ['s0', 's1', 's2'].map((s) => caches.get(s) ?? 0);
    console.log(`sharding e2e: cache sizes ${sizes.join(' / ')}`);
    for (const size of sizes) {
      expect(size).toBeGreaterThan(OBJECTS / 3 * 0.6);
      expect(size).toBeLessThan(OBJECTS / 3 * 1.4);
    }

    // SIGKILL a shard that is not the sharder's leader: no lease release, its objects move once its Lease expires.
    const victim = ['s0', 's1', 's2'].find((s) => s !== leader) ?? 's0';
    const rest = ['s0', 's1', 's2'].filter((s) => s !== victim);
    const killedAt = Date.now();
    kill(victim, killedAt);
    await until(async () => (await list()).every((o) => rest.includes(o.metadata?.labels?.[shardLabel('e2e')] ?? '')), LEASE + 10_000, 'reassignment after the kill');
    const movedIn = Date.now() - killedAt;
    console.log(`sharding e2e: ${victim} killed, its objects reassigned in ${movedIn} ms (lease ${LEASE} ms)`);
    expect(movedIn).toBeLessThan(LEASE + 5_000);
    await until(() => settledOn(rest), 60_000 + OBJECTS * 30, 'moved objects reconciled');

    // Bring it back: objects are drained from the others and handed over.
    start(victim);
    await until(
      async () => (await settledOn(['s0', 's1', 's2'])) && (await list()).filter((o) => o.metadata?.labels?.[shardLabel('e2e')] === victim).length > OBJECTS / 6,
      60_000 + OBJECTS * 60,
      'rebalance after the shard came back',
    );
    await sleep(1_000);

    expect(errors).toEqual([]);
    const overlaps: string[] = [];
    for (const [key, list] of intervals) {
      const sorted = [...list].sort((a, b) => a.start - b.start);
      for (let i = 0; i < sorted.length; i++)
        for (let j = i + 1; j < sorted.length; j++) {
          const a = sorted[i] as Interval;
          const b = sorted[j] as Interval;
          if (b.start >= a.end) break;
          if (a.shard !== b.shard) overlaps.push(`${key}: ${a.shard} [${a.start}, ${a.end}] and ${b.shard} [${b.start}, ${b.end}]`);
        }
    }
    expect(overlaps).toEqual([]);
    expect(intervals.size).toBe(OBJECTS);
  }, 600_000);
});
