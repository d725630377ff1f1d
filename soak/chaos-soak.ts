/**
 * The chaos soak: a writer churns objects against an API server (the embedded one by default) while faults fire at
 * random; a shared informer with three subscribers (fast, slow, one that throws now and then), a
 * second informer with a label selector, and a controller run throughout. At quiescence every
 * cache and every subscriber's view must equal the server's state, the controller must have
 * reconciled the final state of every key, and no key may have been reconciled twice at once.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstValueFrom, timer, type Subscription } from 'rxjs';
import type { KubeObject, UnstructuredObject } from '../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../src/cache/delta.js';
import type { InformerEvent } from '../src/cache/informer-event.js';
import { KubeClient } from '../src/client/kube-client.js';
import { controller } from '../src/controller/controller.js';
import { informerSource } from '../src/controller/informer-source.js';
import { sharedInformer } from '../src/informer/shared-informer.js';
import type { SharedInformer } from '../src/informer/shared-informer-interface.js';
import type { ListWatchOptions } from '../src/reflector/list-watch-options.js';
import { embeddedBackend } from './embedded-backend.js';
import type { SoakBackend } from './soak-backend.js';

/** Options of {@link runSoak}. Durations in ms. */
export interface SoakOptions {
  /** How long the writer churns and faults fire. */
  readonly durationMs: number;
  /** Size of the key space the writer works on. */
  readonly keys: number;
  /** Writer operations per 5 ms tick. */
  readonly opsPerTick: number;
  /** Mean time between two faults. */
  readonly faultEveryMs: number;
  /** Seed of the pseudo-random choices (writer, faults, subscribers, reconciles). */
  readonly seed: number;
  /** How long the system may take to converge after the churn stops. */
  readonly quiesceTimeoutMs: number;
  /** Largest accepted heap growth (after GC) between the synced start and the end. */
  readonly memoryBoundBytes: number;
  /** Server history window (changes kept); small values cause natural 410s. */
  readonly historyWindow: number;
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void;
  /** Interval of progress lines. Default 10 000. */
  readonly logEveryMs?: number;
  /**
   * Where to run (default: a new embedded API server with `historyWindow`, seeded with half the
   * key space). A given backend is closed at the end too.
   */
  readonly backend?: SoakBackend;
  /** Interval of convergence checks at quiescence. Default 50. */
  readonly checkEveryMs?: number;
  /**
   * Negative control: `'fastIgnoresDeletes'` makes the fast subscriber drop every delete it gets,
   * so its view keeps phantom objects and the soak must report violations.
   */
  readonly sabotage?: 'fastIgnoresDeletes';
}

export const DEFAULT_SOAK: SoakOptions = {
  durationMs: 120_000,
  keys: 3_000,
  opsPerTick: 6,
  faultEveryMs: 400,
  seed: 1,
  quiesceTimeoutMs: 60_000,
  memoryBoundBytes: 48 * 1024 * 1024,
  historyWindow: 5_000,
};

/** What the soak measured. `violations` must be empty. */
export interface SoakReport {
  readonly backend: string;
  readonly seed: number;
  readonly writeErrors: number;
  readonly churnMs: number;
  readonly quiesceMs: number;
  readonly writes: Record<'creates' | 'updates' | 'labelMoves' | 'deletes', number>;
  readonly finalObjects: number;
  readonly events: Record<'fast' | 'slow' | 'thrower' | 'selected', number>;
  readonly faults: Record<string, number>;
  readonly relists: number;
  readonly watchRequests: number | undefined;
  readonly reflectorErrors: number;
  readonly reconciles: number;
  readonly reconcileFailures: number;
  readonly maxConcurrentReconciles: number;
  readonly subscriberRestarts: number;
  readonly maxBacklog: number;
  readonly informerErrors: Record<string, number>;
  readonly memory: { readonly baselineBytes: number; readonly endBytes: number } | undefined;
  readonly violations: readonly string[];
}

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const sleep = async (ms: number): Promise<void> => {
  await firstValueFrom(timer(ms));
};
const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const rvOf = (o: KubeObject | null | undefined): string => o?.metadata?.resourceVersion ?? '';

/** A full GC when the runtime allows it (`--expose-gc`, or enabled at run time through V8 flags). */
function gcFunction(): (() => void) | undefined {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g !== undefined) return g;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

async function heapAfterGc(gc: () => void): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

/** A subscriber's view of the cache, built from its notifications; impossible transitions are violations. */
class Mirror {
  readonly state = new Map<string, string>();
  events = 0;
  constructor(
    private readonly name: string,
    private readonly violation: (v: string) => void,
  ) {}

  apply(e: InformerEvent): void {
    this.events++;
    if (e.type === 'delete') {
      const key = e.object instanceof DeletedFinalStateUnknown ? e.object.key : keyOf(e.object);
      if (!this.state.delete(key)) this.violation(`${this.name}: delete of a key it never had: ${key}`);
      return;
    }
    const key = keyOf(e.object);
    const prev = this.state.get(key);
    if (e.type === 'add' && prev !== undefined) this.violation(`${this.name}: add of a key it already has: ${key}`);
    if (e.type === 'update' && prev === undefined) this.violation(`${this.name}: update of a key it does not have: ${key}`);
    if (prev !== undefined && Number(rvOf(e.object)) < Number(prev)) this.violation(`${this.name}: ${key} went back from rv ${prev} to ${rvOf(e.object)}`);
    this.state.set(key, rvOf(e.object));
  }

  reset(): void {
    this.state.clear();
  }
}

function diffState(name: string, got: ReadonlyMap<string, string>, want: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [k, rv] of want) {
    const g = got.get(k);
    if (g === undefined) out.push(`${name}: missing ${k}@${rv}`);
    else if (g !== rv) out.push(`${name}: stale ${k}@${g}, server has ${rv}`);
  }
  for (const [k, rv] of got) if (!want.has(k)) out.push(`${name}: phantom ${k}@${rv}`);
  return out;
}

function storeState(informer: SharedInformer): Map<string, string> {
  return new Map(informer.store.list().map((o) => [keyOf(o), rvOf(o)]));
}

/** Runs the soak and returns its report (violations included; it does not throw on them). */
export async function runSoak(partial: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const o: SoakOptions = { ...DEFAULT_SOAK, ...partial };
  const log = o.log ?? (() => undefined);
  const rand = prng(o.seed);
  const violations: string[] = [];
  const violation = (v: string): void => {
    if (violations.length < 1000) violations.push(v);
  };
  const gc = gcFunction();

  const name = (i: number): string => `cm-${i}`;
  const backend =
    o.backend ??
    (await embeddedBackend({
      historyWindow: o.historyWindow,
      // Start with half the key space filled.
      initial: Array.from({ length: Math.floor(o.keys / 2) }, (_, i): UnstructuredObject => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: name(i * 2), labels: { sel: i % 2 === 0 ? 'in' : 'out' } },
        data: { v: '0' },
      })),
    }));
  const NS = backend.namespace;
  const writes = { creates: 0, updates: 0, labelMoves: 0, deletes: 0 };
  let writeErrors = 0;
  const client = KubeClient.fromKubeConfig(backend.kubeConfig);
  let relists = 0;
  let reflectorErrors = 0;
  const listWatch: ListWatchOptions = { backoff: { initialMs: 20, maxMs: 500 }, idleTimeoutMs: 2_000, listTimeoutMs: 10_000 };
  const all = sharedInformer({ client, resource: CM, scope: { namespace: NS }, listWatch }, { name: 'all' });
  const selected = sharedInformer({ client, resource: CM, scope: { namespace: NS, labelSelector: 'sel=in' }, listWatch }, { name: 'selected' });
  const subs: Subscription[] = [];
  const informerErrors: Record<string, number> = {};
  const lastStatus = new Map<string, string>();
  for (const inf of [all, selected]) {
    subs.push(
      inf.status$.subscribe((s) => {
        lastStatus.set(inf.name, s.type === 'backingOff' ? `backingOff(${s.delayMs}ms→${s.next})` : s.type === 'error' ? `error(${s.action})` : s.type);
        if (s.type === 'listed') relists++;
        if (s.type === 'error') reflectorErrors++;
      }),
      inf.errors$.subscribe((e) => {
        informerErrors[e.name] = (informerErrors[e.name] ?? 0) + 1;
      }),
    );
  }

  // Three subscribers of `all`, and one of `selected`.
  const fast = new Mirror('fast', violation);
  const slow = new Mirror('slow', violation);
  const thrower = new Mirror('thrower', violation);
  const sel = new Mirror('selected', violation);
  subs.push(
    all.listen({ name: 'fast' }).events$.subscribe((e) => {
      if (o.sabotage === 'fastIgnoresDeletes' && e.type === 'delete') return;
      fast.apply(e);
    }),
  );
  subs.push(
    all.listen({ name: 'slow', process: (e: InformerEvent) => {
      slow.apply(e);
      return rand() < 0.3 ? timer(Math.floor(rand() * 4)) : undefined;
    } }).events$.subscribe(),
  );
  subs.push(selected.listen({ name: 'selected' }).events$.subscribe((e) => sel.apply(e)));
  let subscriberRestarts = 0;
  let stopped = false;
  let throwerSub: Subscription | undefined;
  const startThrower = (): void => {
    thrower.reset();
    throwerSub = all.listen({ name: `thrower-${subscriberRestarts}`, process: (e: InformerEvent) => {
      if (rand() < 0.001) throw new Error('subscriber failure (injected)');
      thrower.apply(e);
    } }).events$.subscribe({
      error: () => {
        subscriberRestarts++;
        if (!stopped) timer(5).subscribe(startThrower);
      },
    });
  };
  startThrower();

  // The controller.
  const inflight = new Set<string>();
  const lastSeen = new Map<string, string>();
  let reconciles = 0;
  let reconcileFailures = 0;
  let maxConcurrent = 0;
  const ctrl = controller({
    name: `soak-${o.seed}`,
    skipNameValidation: true,
    for: informerSource(all, { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }),
    concurrency: 4,
    reconcile: async (req, ctx) => {
      const key = `${req.namespace ?? ''}/${req.name}`;
      if (inflight.has(key)) violation(`controller: ${key} reconciled twice at once`);
      inflight.add(key);
      maxConcurrent = Math.max(maxConcurrent, inflight.size);
      reconciles++;
      try {
        const seen = rvOf(ctx.store.get(key)) || 'absent';
        if (rand() < 0.2) await sleep(Math.floor(rand() * 3));
        if (rand() < 0.03) {
          reconcileFailures++;
          throw new Error('reconcile failure (injected)');
        }
        lastSeen.set(key, seen);
      } finally {
        inflight.delete(key);
      }
    },
  });
  const stopController = new AbortController();
  const controllerDone = ctrl.start(stopController.signal).then(
    () => undefined,
    (e: unknown) => violation(`controller stopped with ${String(e)}`),
  );

  const synced = await Promise.all([all.waitForSync(30_000), selected.waitForSync(30_000)]);
  if (!synced.every(Boolean)) violation('informers did not sync within 30 s');
  const baselineBytes = gc === undefined ? undefined : await heapAfterGc(gc);
  log(`synced ${all.store.list().length} objects; churning for ${o.durationMs} ms`);

  // Writer.
  const touched = new Set<string>();
  const writeOne = async (): Promise<void> => {
    const n = name(Math.floor(rand() * o.keys));
    touched.add(`${NS}/${n}`);
    const r = rand();
    try {
      const cur = await backend.get(n);
      if (cur === undefined) {
        await backend.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: NS, labels: { sel: r < 0.5 ? 'in' : 'out' } }, data: { v: '0' } });
        writes.creates++;
      } else if (r < 0.5) {
        const v = (cur as { data?: Record<string, string> }).data?.v ?? '0';
        await backend.update({ ...cur, data: { v: String(Number(v) + 1) } });
        writes.updates++;
      } else if (r < 0.8) {
        const labels = { ...(cur.metadata?.labels ?? {}) };
        labels.sel = labels.sel === 'in' ? 'out' : 'in';
        await backend.update({ ...cur, metadata: { ...cur.metadata, labels } });
        writes.labelMoves++;
      } else {
        await backend.delete(n);
        writes.deletes++;
      }
    } catch {
      // a write refused or cut by a fault (restart, 5xx); the final check compares with the server
      writeErrors++;
    }
  };

  // Faults.
  const faults: Record<string, number> = {};
  const weights = backend.faults.map((f) => f.weight ?? 1);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  let faultInFlight: Promise<void> | undefined;
  const fault = (): void => {
    if (faultInFlight !== undefined || backend.faults.length === 0) return;
    let x = rand() * totalWeight;
    const f = backend.faults.find((_, i) => (x -= weights[i] ?? 1) < 0) ?? backend.faults[0];
    if (f === undefined) return;
    faults[f.kind] = (faults[f.kind] ?? 0) + 1;
    const done = f.fire(rand);
    if (done instanceof Promise) {
      faultInFlight = done.then(
        () => undefined,
        (e: unknown) => violation(`fault ${f.kind} failed to fire: ${String(e)}`),
      ).finally(() => {
        faultInFlight = undefined;
      });
    }
  };

  const t0 = Date.now();
  let nextFault = t0 + o.faultEveryMs * (0.5 + rand());
  const logEvery = o.logEveryMs ?? 10_000;
  let nextLog = t0 + logEvery;
  while (Date.now() - t0 < o.durationMs) {
    for (let i = 0; i < o.opsPerTick; i++) await writeOne();
    const now = Date.now();
    if (now >= nextFault) {
      fault();
      nextFault = now + o.faultEveryMs * (0.5 + rand());
    }
    if (now >= nextLog) {
      log(`t=${Math.round((now - t0) / 1000)}s writes=${writes.creates + writes.updates + writes.labelMoves + writes.deletes} (errors ${writeErrors}) reconciles=${reconciles} events=${fast.events} relists=${relists} faults=${Object.values(faults).reduce((a, b) => a + b, 0)} violations=${violations.length} status=${[...lastStatus].map(([k, v]) => `${k}:${v}`).join(',')}`);
      nextLog = now + logEvery;
    }
    await sleep(5);
  }
  const churnMs = Date.now() - t0;

  // Quiescence: no more writes or faults; everything must converge to the server's state.
  await faultInFlight;
  await backend.clearFaults();
  const check = async (): Promise<string[]> => {
    const objects = await backend.list();
    const want = new Map(objects.map((x) => [keyOf(x), rvOf(x)]));
    const wantSelected = new Map(objects.filter((x) => x.metadata?.labels?.sel === 'in').map((x) => [keyOf(x), rvOf(x)]));
    const out = [
      ...diffState('cache all', storeState(all), want),
      ...diffState('cache selected', storeState(selected), wantSelected),
      ...diffState('subscriber fast', fast.state, want),
      ...diffState('subscriber slow', slow.state, want),
      ...diffState('subscriber thrower', thrower.state, want),
      ...diffState('subscriber selected', sel.state, wantSelected),
    ];
    for (const k of touched) {
      const expected = want.get(k);
      const seen = lastSeen.get(k);
      if (expected !== undefined ? seen !== expected : seen !== undefined && seen !== 'absent') {
        out.push(`controller: last reconcile of ${k} saw ${seen ?? 'nothing'}, final state ${expected ?? 'absent'}`);
      }
    }
    if (inflight.size > 0) out.push(`controller: ${inflight.size} reconciles in flight`);
    return out;
  };
  const q0 = Date.now();
  let stableSince: number | undefined;
  let last: string[] = [];
  while (Date.now() - q0 < o.quiesceTimeoutMs) {
    last = await check().catch((e: unknown) => [`listing the server failed: ${String(e)}`]);
    if (last.length === 0) {
      stableSince ??= Date.now();
      if (Date.now() - stableSince >= 1_000) break;
    } else stableSince = undefined;
    await sleep(o.checkEveryMs ?? 50);
  }
  const quiesceMs = Date.now() - q0;
  if (last.length > 0) {
    violation(`no convergence within ${o.quiesceTimeoutMs} ms (${last.length} differences)`);
    for (const d of last.slice(0, 20)) violation(d);
  }
  const maxBacklog = Math.max(0, ...all.backlogs().values());
  const endBytes = gc === undefined ? undefined : await heapAfterGc(gc);
  const memory = baselineBytes !== undefined && endBytes !== undefined ? { baselineBytes, endBytes } : undefined;
  if (memory !== undefined && memory.endBytes - memory.baselineBytes > o.memoryBoundBytes) {
    violation(`memory: heap grew ${((memory.endBytes - memory.baselineBytes) / 1048576).toFixed(1)} MB (bound ${(o.memoryBoundBytes / 1048576).toFixed(0)} MB)`);
  }

  // Stop everything; nothing may stay open.
  const watchRequests = backend.watchRequests?.();
  const finalObjects = (await backend.list().catch(() => [])).length;
  stopped = true;
  stopController.abort();
  await controllerDone;
  throwerSub?.unsubscribe();
  for (const s of subs) s.unsubscribe();
  const openWatches = backend.openWatches;
  if (openWatches !== undefined) {
    const closeBy = Date.now() + 5_000;
    while (openWatches() > 0 && Date.now() < closeBy) await sleep(20);
    if (openWatches() > 0) violation(`${openWatches()} watches still open after stop`);
  }
  if (all.isRunning || selected.isRunning) violation('an informer still runs after its last subscriber left');
  client.close();
  await backend.close();

  return {
    backend: backend.name,
    seed: o.seed,
    writeErrors,
    churnMs,
    quiesceMs,
    writes,
    finalObjects,
    events: { fast: fast.events, slow: slow.events, thrower: thrower.events, selected: sel.events },
    faults,
    relists,
    watchRequests,
    reflectorErrors,
    reconciles,
    reconcileFailures,
    maxConcurrentReconciles: maxConcurrent,
    subscriberRestarts,
    maxBacklog,
    informerErrors,
    memory,
    violations,
  };
}

/** The report as printable lines. */
export function formatSoakReport(r: SoakReport): string[] {
  const mb = (b: number): string => (b / 1048576).toFixed(1);
  const w = r.writes;
  return [
    `chaos soak on the ${r.backend} (seed ${r.seed}): churn ${(r.churnMs / 1000).toFixed(1)} s, converged in ${(r.quiesceMs / 1000).toFixed(1)} s`,
    `writes: ${w.creates + w.updates + w.labelMoves + w.deletes} (creates ${w.creates}, updates ${w.updates}, label moves ${w.labelMoves}, deletes ${w.deletes}; failed ${r.writeErrors}); final objects ${r.finalObjects}`,
    `events: fast ${r.events.fast}, slow ${r.events.slow}, thrower ${r.events.thrower}, selected ${r.events.selected}`,
    `faults: ${Object.entries(r.faults).sort().map(([k, v]) => `${k} ${v}`).join(', ')} (total ${Object.values(r.faults).reduce((a, b) => a + b, 0)})`,
    `relists: ${r.relists}, watch requests: ${r.watchRequests ?? 'n/a'}, reflector errors: ${r.reflectorErrors}`,
    `reconciles: ${r.reconciles} (injected failures ${r.reconcileFailures}, max concurrent ${r.maxConcurrentReconciles}); subscriber restarts: ${r.subscriberRestarts}; max backlog at end: ${r.maxBacklog}`,
    `informer errors: ${Object.entries(r.informerErrors).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    r.memory === undefined ? 'memory: not measured (no gc)' : `memory: heap ${mb(r.memory.baselineBytes)} MB after sync → ${mb(r.memory.endBytes)} MB at quiescence`,
    `violations: ${r.violations.length}`,
    ...r.violations.slice(0, 30).map((v) => `  - ${v}`),
  ];
}
