/**
 * The API server of the benchmarks, in a process of its own (so its work and heap never mix with a
 * contender's): the embedded API server over plain HTTP, seeded with realistic pods, and a
 * `burst` command that queues a stream of modifications on frozen watches, so that on `unfreeze`
 * the server only writes pre-serialised events and is not the bottleneck of a watch measurement.
 * For the sharded-throughput benchmark: a kubeconfig file for the replicas, ConfigMaps to seed
 * and touch, and where the ring's assignment stands.
 */
import { resources } from '../../src/api/builtin-resources.js';
import { HashRing, drainLabel, shardKey, shardLabel } from '../../src/sharding/shard-ring.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { realisticPod } from './pods.js';
import { serveCommands } from './rpc.js';

let server: ApiServer | undefined;
let generation = 0;

function need(): ApiServer {
  if (server === undefined) throw new Error('server not started');
  return server;
}

serveCommands({
  async start(args: { historyWindow?: number }) {
    // Lenient: the realistic pods are stored as the fixture shapes them (the size the client benchmarks state);
    // what strict admission costs the server is measured in bench/api-server.ts.
    // Kubernetes 1.34: streaming lists (sendInitialEvents) are served.
    server = await startApiServer({ historyWindow: args.historyWindow ?? 50_000, bookmarkIntervalMs: 3_600_000, pageResourceVersionZeroLists: true, strict: false, kubernetesVersion: '1.34' });
    return { url: server.url };
  },
  /** Seeds pods number `from` … `to - 1`. */
  seed(args: { from: number; to: number }) {
    const s = need();
    const t0 = performance.now();
    const batch: ReturnType<typeof realisticPod>[] = [];
    for (let i = args.from; i < args.to; i++) {
      batch.push(realisticPod(i));
      if (batch.length === 5000) s.seed(batch.splice(0));
    }
    s.seed(batch);
    return { ms: performance.now() - t0, resourceVersion: s.resourceVersion, bytes: JSON.stringify(s.get('v1', 'Pod', realisticPod(args.from).metadata?.name ?? '', `ns-${args.from % 50}`)).length };
  },
  openWatches() {
    return need().openWatches('/pods');
  },
  /** Freezes watches, then modifies `events` pods (round robin over `objects`); they queue up. */
  burst(args: { events: number; objects: number }) {
    const s = need();
    s.faults.freezeWatches();
    generation++;
    const t0 = performance.now();
    for (let e = 0; e < args.events; e++) {
      const i = e % args.objects;
      s.update(realisticPod(i, generation * 1000 + Math.floor(e / args.objects) + 1));
    }
    return { ms: performance.now() - t0 };
  },
  unfreeze() {
    need().faults.unfreezeWatches();
    return null;
  },
  async kubeconfig(args: { path: string }) {
    await need().writeKubeconfig(args.path);
    return null;
  },
  /** Creates namespace `namespace` and ConfigMaps `cm-0` … `cm-<count - 1>` in it. */
  seedConfigMaps(args: { namespace: string; count: number }) {
    const s = need();
    s.seed([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: args.namespace } }]);
    s.seed(Array.from({ length: args.count }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: args.namespace }, data: { i: String(i) } })));
    return null;
  },
  /** Rewrites every ConfigMap of `namespace` (a new `data.round`, the annotation `strip` removed). */
  touchConfigMaps(args: { namespace: string; round: number; strip: string }) {
    const s = need();
    const t0 = performance.now();
    for (const cm of s.list('v1', 'ConfigMap', args.namespace)) {
      const meta = (cm.metadata ?? {}) as { annotations?: Record<string, string> };
      const { [args.strip]: _, ...annotations } = meta.annotations ?? {};
      s.update({ ...cm, metadata: { ...meta, annotations }, data: { ...(cm.data as object), round: String(args.round) } } as never);
    }
    return { ms: performance.now() - t0 };
  },
  /**
   * Where the ConfigMaps of `namespace` stand in ring `ring` with shards `shards`: how many carry
   * the shard the ring chooses for them (and no drain label), how many of those also carry that
   * shard in `annotation` (reconciled there), and how many each shard should hold.
   */
  assignment(args: { namespace: string; ring: string; shards: string[]; annotation: string }) {
    const ring = new HashRing(args.shards);
    let assigned = 0;
    let reconciled = 0;
    const perShard: Record<string, number> = {};
    const items = need().list('v1', 'ConfigMap', args.namespace);
    for (const cm of items) {
      const meta = (cm.metadata ?? {}) as { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
      const desired = ring.shardFor(shardKey(resources.configMaps, args.namespace, meta.name ?? '')) ?? '';
      perShard[desired] = (perShard[desired] ?? 0) + 1;
      if (meta.labels?.[shardLabel(args.ring)] !== desired || meta.labels[drainLabel(args.ring)] !== undefined) continue;
      assigned++;
      if (meta.annotations?.[args.annotation] === desired) reconciled++;
    }
    return { total: items.length, assigned, reconciled, perShard };
  },
  async close() {
    await server?.close();
    server = undefined;
    return null;
  },
});
