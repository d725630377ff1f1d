/**
 * The API server of the benchmarks, in a process of its own (so its work and heap never mix with a
 * contender's): the embedded API server over plain HTTP, seeded with realistic pods, and a
 * `burst` command that queues a stream of modifications on frozen watches, so that on `unfreeze`
 * the server only writes pre-serialised events and is not the bottleneck of a watch measurement.
 */
import { startApiServer, type ApiServer } from '../../src/testing/index.js';
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
    server = await startApiServer({ historyWindow: args.historyWindow ?? 50_000, bookmarkIntervalMs: 3_600_000, pageResourceVersionZeroLists: true, strict: false });
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
  async close() {
    await server?.close();
    server = undefined;
    return null;
  },
});
