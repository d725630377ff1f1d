/**
 * One embedded API server for the API server benchmark, in a process of its own: today's
 * (`src/testing/index.ts`, strict or lenient) or the baseline's (see baseline-server.ts), loaded
 * from the module the parent names, so the same commands drive both. Pods are realistic
 * (bench/support/pods.ts) in namespaces `ns-0` … `ns-49`.
 */
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { realisticPod } from './pods.js';
import { serveCommands } from './rpc.js';
import { cpuClock, forceGc } from './stats.js';

type Obj = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } };

/** What both servers have in common (the baseline's API is a subset of today's). */
interface ServerLike {
  readonly url: string;
  readonly resourceVersion: number;
  seed(objects: Iterable<Obj>): unknown[];
  get(apiVersion: string, kind: string, name: string, namespace?: string): Obj | undefined;
  update(object: Obj): unknown;
  openWatches(resourceId?: string): number;
  close(): Promise<void>;
}

let server: ServerLike | undefined;

function need(): ServerLike {
  if (server === undefined) throw new Error('server not started');
  return server;
}

serveCommands({
  async start(args: { module: string; strict: boolean }) {
    const mod = (await import(pathToFileURL(args.module).href)) as { startApiServer(options: Record<string, unknown>): Promise<ServerLike> };
    server = await mod.startApiServer({
      strict: args.strict,
      historyWindow: 200_000,
      bookmarkIntervalMs: 3_600_000,
      requestLogLimit: 1000,
      namespaces: ['default', ...Array.from({ length: 50 }, (_, i) => `ns-${i}`)],
    });
    return { url: server.url };
  },
  /** Seeds pods number `from` … `to - 1` through the direct API (admission included when strict). */
  seed(args: { from: number; to: number }) {
    const s = need();
    const cpu = cpuClock();
    const t0 = performance.now();
    for (let i = args.from; i < args.to; i += 1000) {
      const batch: Obj[] = [];
      for (let j = i; j < Math.min(args.to, i + 1000); j++) batch.push(realisticPod(j));
      s.seed(batch);
    }
    return { ms: performance.now() - t0, cpuMs: cpu() };
  },
  resourceVersion() {
    return need().resourceVersion;
  },
  openWatches() {
    return need().openWatches('/pods');
  },
  /** A full garbage collection, so that a measurement does not pay for the garbage of the one before. */
  gc() {
    forceGc();
    return null;
  },
  /** This process's CPU time so far (user + system, ms). */
  cpu() {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  },
  /**
   * The writer: `events` read-modify-write updates (a label and an annotation change) of pods
   * `0 … objects - 1` round robin, through the direct API (the PUT path without HTTP), 100 per
   * turn of the event loop so the watches' sockets are written between turns.
   */
  async write(args: { objects: number; events: number; gen: number }) {
    const s = need();
    const t0 = performance.now();
    for (let e = 0; e < args.events; e++) {
      const i = e % args.objects;
      const want = realisticPod(i);
      const cur = s.get('v1', 'Pod', want.metadata?.name ?? '', want.metadata?.namespace);
      if (cur === undefined) throw new Error(`pod ${i} missing`);
      const g = String(args.gen * 1_000_000 + e);
      s.update({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, generation: g }, annotations: { ...cur.metadata?.annotations, 'example.com/generation': g } } });
      if (e % 100 === 99) await yieldToIo();
    }
    return { ms: performance.now() - t0 };
  },
  async close() {
    await server?.close();
    server = undefined;
    return null;
  },
});
