/**
 * Controller sharding against the embedded API server: a sharder and three shards (each its own
 * client, as separate replicas would be) of a ConfigMap controller that owns Secrets. Every
 * object is assigned and reconciled, never by two shards at once; caches divide by three; owned
 * Secrets follow their owner; a stopped shard's objects move to the others, and when it comes back
 * objects are handed over through the drain label.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { Controller } from '../../src/controller/controller.js';
import { type ShardedController, shardedController } from '../../src/sharding/sharded-controller.js';
import { drainLabel, shardLabel } from '../../src/sharding/shard-ring.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';

const NS = 'sharded';
const RING = 'mirror';
const OBJECTS = 60;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 30_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Interval {
  shard: string;
  start: number;
  end: number;
}

describe('sharded controllers on the embedded API server', () => {
  let server: ApiServer;
  const clients: KubeClient[] = [];
  const client = () => {
    const c = KubeClient.fromKubeConfig(server.kubeConfig);
    clients.push(c);
    return c;
  };
  const intervals = new Map<string, Interval[]>();
  const running = new Map<string, string>();
  const overlaps: string[] = [];
  const reconciledBy = new Map<string, string>();

  const shard = (name: string): ShardedController =>
    shardedController({
      name: 'mirror',
      for: resources.configMaps,
      owns: [resources.secrets],
      client: client(),
      sharding: {
        ring: RING,
        shard: name,
        leaseNamespace: NS,
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 300,
        informers: { namespace: NS },
        sharder: { needLeaderElection: false, expiryCheckMs: 200 },
      },
      reconcile: async (req, ctx) => {
        const key = `${req.namespace}/${req.name}`;
        const other = running.get(key);
        if (other !== undefined) overlaps.push(`${key}: ${name} while ${other}`);
        running.set(key, name);
        const iv: Interval = { shard: name, start: Date.now(), end: 0 };
        try {
          await sleep(5);
          const cm = ctx.object;
          if (cm === undefined) return;
          const secrets = ctx.objects(resources.secrets, req.namespace);
          if ((await secrets.get(`m-${req.name}`).catch(() => undefined)) === undefined) {
            await secrets
              .create({
                apiVersion: 'v1',
                kind: 'Secret',
                metadata: { name: `m-${req.name}`, namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: req.name, uid: cm.metadata?.uid ?? '', controller: true }] },
              })
              .catch(() => undefined);
          }
          reconciledBy.set(key, name);
        } finally {
          iv.end = Date.now();
          if (running.get(key) === name) running.delete(key);
          intervals.set(key, [...(intervals.get(key) ?? []), iv]);
        }
      },
    });

  beforeAll(async () => {
    server = await startApiServer();
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < OBJECTS; i++) server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: NS } });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server.close();
  });

  it('assigns, divides, reconciles once at a time, moves on stop and rebalances on return', async () => {
    const labelOf = (o: KubeObject | undefined) => o?.metadata?.labels?.[shardLabel(RING)];
    const cms = () => server.list('v1', 'ConfigMap', NS).filter((o) => o.metadata?.name?.startsWith('cm-'));
    const secrets = () => server.list('v1', 'Secret', NS).filter((o) => o.metadata?.name?.startsWith('m-'));
    // The ring's sharder, as every replica's controller offers it (`.sharder`); here from one not started.
    const s = shard('sharder-host').sharder;
    const shards = new Map<string, { c: Controller; stop: AbortController; done: Promise<void> }>();
    const startShard = (name: string) => {
      const c = shard(name);
      const stop = new AbortController();
      shards.set(name, { c, stop, done: c.start(stop.signal) });
    };
    const sharderStop = new AbortController();
    const sharderDone = s.start(sharderStop.signal);
    for (const n of ['s0', 's1', 's2']) startShard(n);

    const settled = (names: string[]) => () =>
      cms().every((o) => names.includes(labelOf(o) ?? '') && o.metadata?.labels?.[drainLabel(RING)] === undefined) &&
      secrets().length === OBJECTS &&
      secrets().every((sec) => labelOf(sec) === labelOf(cms().find((c) => c.metadata?.uid === sec.metadata?.ownerReferences?.[0]?.uid)));
    await until(settled(['s0', 's1', 's2']), 30_000, 'initial assignment');
    await until(() => cms().every((o) => reconciledBy.get(`${NS}/${o.metadata?.name}`) === labelOf(o)), 30_000, 'every object reconciled by its shard');
    const counts = ['s0', 's1', 's2'].map((n) => cms().filter((o) => labelOf(o) === n).length);
    for (const c of counts) expect(c).toBeGreaterThan(OBJECTS / 3 / 2);
    // Each shard's cache holds only its own objects.
    await until(() => ['s0', 's1', 's2'].every((n) => shards.get(n)?.c.store.size === cms().filter((o) => labelOf(o) === n).length), 10_000, 'caches divided');

    // Stop s0 (its Lease is released): its objects move to s1 and s2.
    const s0 = shards.get('s0');
    s0?.stop.abort();
    await s0?.done;
    await until(settled(['s1', 's2']), 15_000, 'reassignment after s0 stopped');
    const movedAt = Date.now();
    await until(() => cms().every((o) => (intervals.get(`${NS}/${o.metadata?.name}`) ?? []).some((iv) => iv.shard === labelOf(o) && iv.start >= movedAt - 5_000)), 30_000, 'moved objects reconciled');

    // Bring s0 back: objects are drained from s1/s2 and handed over.
    startShard('s0');
    await until(settled(['s0', 's1', 's2']), 30_000, 'rebalance after s0 returned');
    await until(() => cms().filter((o) => labelOf(o) === 's0').length > OBJECTS / 6, 10_000, 's0 got objects back');
    expect(overlaps).toEqual([]);
    for (const [key, list] of intervals) {
      const sorted = [...list].sort((a, b) => a.start - b.start);
      for (let i = 1; i < sorted.length; i++) {
        const a = sorted[i - 1] as Interval;
        const b = sorted[i] as Interval;
        if (a.shard !== b.shard) expect(b.start, `${key}: ${a.shard} then ${b.shard}`).toBeGreaterThanOrEqual(a.end);
      }
    }
    for (const { stop, done } of shards.values()) {
      stop.abort();
      await done;
    }
    sharderStop.abort();
    await sharderDone;
  }, 120_000);
});
