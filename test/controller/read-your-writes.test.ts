/**
 * Read-your-writes by default (issue 27, item 3), in virtual time: a fake API server answers the
 * controller's writes at once, but its watch event reaches the controller's cache only after a
 * delay. The reconcile that follows its own write waits until the cache shows the write
 * (resourceVersion or newer, or the delete), its key parked (holding no worker), bounded by
 * `readYourWrites.timeoutMs`, after which it fails with `ReadYourWritesTimeoutError` and is requeued. With `readYourWrites: false` the
 * same reconcile reads the stale copy (the negative control).
 */
import { Subject, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnection, KubeRequest } from '../../src/client/kube-connection.js';
import { controller, type ControllerOptions } from '../../src/controller/controller.js';
import { ControllerBuildError } from '../../src/controller/controller-errors.js';
import { OwnWrites, cacheShows, eventShows, type OwnWrite } from '../../src/controller/own-writes.js';
import { ReadYourWritesTimeoutError } from '../../src/controller/read-your-writes.js';
import { writeOf } from '../../src/controller/write-tracking-client.js';
import { Indexer } from '../../src/cache/indexer.js';
import type { Logger } from '../../src/logging/logger.js';
import { added, fakeSource } from '../../src/testing/controller-harness.js';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import { virtualTime, type VirtualTime } from '../manager/virtual-time.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;
type ConfigMap = KubeObject & { data?: Record<string, string> };
const cm = (name: string, rv: string, data: Record<string, string> = {}, uid = `uid-${name}`): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: rv, uid },
  data,
});
const rvOf = (o: KubeObject | undefined): string | undefined => o?.metadata?.resourceVersion;

/**
 * A fake API server for ConfigMaps in `ns`: writes are answered at once with the next integer
 * resourceVersion (or `rv-<n>` when `opaque`), and each change reaches `events$` (the watch) only
 * `watchDelayMs` virtual ms later (never, when Infinity).
 */
function fakeServer(vt: VirtualTime, initial: readonly ConfigMap[], o: { watchDelayMs: number; opaque?: boolean }) {
  const events$ = new Subject<InformerEvent<ConfigMap>>();
  const held = new Map<string, ConfigMap>(initial.map((x) => [x.metadata?.name as string, x]));
  let rv = 1;
  for (const x of initial) rv = Math.max(rv, Number(x.metadata?.resourceVersion));
  const nextRv = (): string => (o.opaque === true ? `rv-${++rv}` : String(++rv));
  const watch = (event: InformerEvent<ConfigMap>): void => {
    if (o.watchDelayMs === Infinity) return;
    timer(o.watchDelayMs, vt.scheduler).subscribe(() => events$.next(event));
  };
  const writes: string[] = [];
  const connection = {
    request: (req: KubeRequest): Promise<unknown> => {
      const method = req.method ?? 'GET';
      const name = /\/configmaps\/([^/]+)$/.exec(req.path)?.[1];
      writes.push(`${method} ${name ?? ''}`);
      if (method === 'POST') {
        const body = req.body as ConfigMap;
        const namespace = /\/namespaces\/([^/]+)\//.exec(req.path)?.[1] ?? 'ns';
        const base = cm(body.metadata?.name as string, nextRv(), body.data ?? {});
        const made: ConfigMap = { ...base, metadata: { ...base.metadata, namespace } };
        held.set(made.metadata?.name as string, made);
        watch(added(made));
        return Promise.resolve(made);
      }
      const old = held.get(name ?? '');
      if (old === undefined) return Promise.reject(new Error(`not found: ${name}`));
      if (method === 'PATCH') {
        const patch = req.body as { data?: Record<string, string> };
        const next = cm(name as string, nextRv(), { ...old.data, ...patch.data });
        held.set(name as string, next);
        watch({ type: 'update', old, object: next, resync: false });
        return Promise.resolve(next);
      }
      if (method === 'DELETE') {
        held.delete(name as string);
        watch({ type: 'delete', object: old });
        return Promise.resolve({ apiVersion: 'v1', kind: 'Status', status: 'Success', details: { name, kind: 'configmaps', uid: old.metadata?.uid } });
      }
      return Promise.resolve(old);
    },
  } as unknown as KubeConnection;
  return { client: new KubeClient(connection), events$, held, writes };
}

function quietLogger(warnings: unknown[] = []): Logger {
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (_m, f) => void warnings.push(f?.err), error: () => undefined, child: () => logger };
  return logger;
}

interface Reads {
  readonly at: number;
  /** `ctx.object`'s resourceVersion (undefined: gone). */
  readonly object: string | undefined;
  /** What the informer's own cache held. */
  readonly cache: string | undefined;
}

/**
 * Runs a controller whose first reconcile of `ns/a` writes (`write`) and requeues; records what
 * each reconcile read, and every outcome, for `forMs` virtual ms.
 */
async function runWriteThenRead(o: {
  watchDelayMs: number;
  opaque?: boolean;
  write: 'patch' | 'delete';
  readYourWrites?: ControllerOptions['readYourWrites'];
  forMs: number;
}) {
  const vt = virtualTime();
  const server = fakeServer(vt, [cm('a', '1', { n: '0' })], o);
  const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [...server.held.values()], events$: server.events$ });
  const reads: Reads[] = [];
  const outcomes: ReconcileOutcome[] = [];
  const warnings: unknown[] = [];
  let writes = 0;
  const ctrl = controller<ConfigMap>({
    name: `ryw-${o.write}-${String(o.readYourWrites)}-${o.watchDelayMs}-${o.opaque === true}`,
    skipNameValidation: true,
    for: source,
    client: server.client,
    scheduler: vt.scheduler,
    logger: quietLogger(warnings),
    ...(o.readYourWrites === undefined ? {} : { readYourWrites: o.readYourWrites }),
    reconcile: async (req, ctx) => {
      reads.push({ at: vt.scheduler.now(), object: rvOf(ctx.object), cache: rvOf(source.store.get('ns/a')) });
      if (writes > 0) return;
      writes++;
      if (o.write === 'patch') await ctx.objects().patch(req.name, { data: { n: '1' } });
      else await ctx.objects().delete(req.name);
      return { requeue: true };
    },
  });
  const stop = new AbortController();
  const sub = ctrl.run(stop.signal).subscribe((x) => outcomes.push(x));
  await vt.advance(o.forMs);
  stop.abort();
  await vt.advance(1_000);
  sub.unsubscribe();
  return { reads, outcomes, warnings, server };
}

describe('read-your-writes (virtual time, delayed watch)', () => {
  it('the reconcile after an own update waits until the cache holds its resourceVersion', async () => {
    const { reads } = await runWriteThenRead({ watchDelayMs: 3_000, write: 'patch', forMs: 5_000 });
    expect(reads[0]).toEqual({ at: 0, object: '1', cache: '1' });
    // The requeue was due after 5 ms; it ran when the watch event arrived, and read the write
    // (the event then runs it once more).
    expect(reads[1]).toEqual({ at: 3_000, object: '2', cache: '2' });
  });

  it('negative control: with readYourWrites: false the same reconcile reads the stale copy', async () => {
    const { reads } = await runWriteThenRead({ watchDelayMs: 3_000, write: 'patch', readYourWrites: false, forMs: 5_000 });
    expect(reads[1]?.at).toBeLessThan(3_000);
    expect(reads[1]?.object).toBe('1'); // stale: the server is at 2
  });

  it('the reconcile after an own delete waits until the cache no longer holds the object', async () => {
    const { reads } = await runWriteThenRead({ watchDelayMs: 2_000, write: 'delete', forMs: 5_000 });
    expect(reads[1]).toEqual({ at: 2_000, object: undefined, cache: undefined });
    const off = await runWriteThenRead({ watchDelayMs: 2_000, write: 'delete', readYourWrites: false, forMs: 5_000 });
    expect(off.reads[1]?.at).toBeLessThan(2_000);
    expect(off.reads[1]?.object).toBe('1'); // stale: deleted on the server
  });

  it('opaque resourceVersions: waits for an exact match or any event after the write', async () => {
    const { reads } = await runWriteThenRead({ watchDelayMs: 1_500, opaque: true, write: 'patch', forMs: 5_000 });
    expect(reads[1]).toEqual({ at: 1_500, object: 'rv-2', cache: 'rv-2' });
  });

  it('gives up after timeoutMs: the reconcile fails with ReadYourWritesTimeoutError (logged), is requeued, and then runs', async () => {
    const { reads, outcomes, warnings } = await runWriteThenRead({ watchDelayMs: Infinity, write: 'patch', forMs: 15_000 });
    const failed = outcomes.filter((x) => x.kind === 'error');
    expect(failed).toHaveLength(1);
    const error = failed[0]?.error as ReadYourWritesTimeoutError;
    expect(error).toBeInstanceOf(ReadYourWritesTimeoutError);
    expect(error.code).toBe('CONTROLLER_READ_YOUR_WRITES_TIMEOUT');
    expect(error.writes).toEqual(['/ConfigMap ns/a@2']);
    expect(error.message).toContain('within 10000 ms');
    expect((failed[0]?.startedAt ?? 0) + (failed[0]?.duration ?? 0)).toBe(10_000);
    expect(warnings).toContain(error);
    // Requeued with the rate limiter, it then ran (on the stale cache: the watch never came).
    expect(reads).toHaveLength(2);
    expect(reads[1]?.at).toBeGreaterThanOrEqual(10_000);
    expect(reads[1]?.at).toBeLessThan(10_100);
  });

  it('the timeout is the option’s, on the controller’s scheduler', async () => {
    const { outcomes } = await runWriteThenRead({ watchDelayMs: Infinity, write: 'patch', readYourWrites: { timeoutMs: 500 }, forMs: 2_000 });
    const failed = outcomes.find((x) => x.kind === 'error');
    expect(failed?.error).toBeInstanceOf(ReadYourWritesTimeoutError);
    expect((failed?.startedAt ?? 0) + (failed?.duration ?? 0)).toBe(500);
  });

  it('ctx’s stores show an own write at once, before the cache has it (update, delete; list and get)', async () => {
    const vt = virtualTime();
    const server = fakeServer(vt, [cm('a', '1'), cm('b', '1')], { watchDelayMs: 1_000 });
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [...server.held.values()], events$: server.events$ });
    const seen: string[] = [];
    const ctrl = controller<ConfigMap>({
      name: 'ryw-store-view',
      for: source,
      client: server.client,
      scheduler: vt.scheduler,
      logger: quietLogger(),
      reconcile: async (req, ctx) => {
        if (req.name !== 'a') return;
        await ctx.objects().patch('a', { data: { x: 'y' } });
        await ctx.objects().delete('b');
        const view = ctx.storeOf(source);
        seen.push(
          `store a@${rvOf(ctx.store.get('ns/a'))} b:${String(ctx.store.has('ns/b'))} list ${ctx.store.list().map((x) => `${x.metadata?.name}@${rvOf(x)}`).join(',')} size ${ctx.store.size}`,
          `storeOf a@${rvOf(view.get('ns/a'))} keys ${view.listKeys().join(',')}`,
          `cache a@${rvOf(source.store.get('ns/a'))} b:${String(source.store.has('ns/b'))}`,
        );
      },
    });
    const stop = new AbortController();
    const sub = ctrl.run(stop.signal).subscribe();
    await vt.advance(100);
    stop.abort();
    await vt.advance(2_000);
    sub.unsubscribe();
    expect(seen).toEqual(['store a@2 b:false list a@2 size 1', 'storeOf a@2 keys ns/a', 'cache a@1 b:true']);
  });

  it('a key’s next reconcile also waits for the objects its earlier reconcile created (no duplicate create)', async () => {
    const vt = virtualTime();
    const server = fakeServer(vt, [cm('owner', '1')], { watchDelayMs: 2_000 });
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [...server.held.values()], events$: server.events$ });
    const children: string[] = [];
    const run = async (readYourWrites: boolean) => {
      const creates: number[] = [];
      const ctrl = controller<ConfigMap>({
        name: `ryw-children-${readYourWrites}`,
        for: source,
        client: server.client,
        scheduler: vt.scheduler,
        logger: quietLogger(),
        readYourWrites,
        reconcile: async (req, ctx) => {
          if (req.name !== 'owner') return;
          const child = ctx.store.get(`ns/owner-child-${readYourWrites}`);
          children.push(`${readYourWrites} ${vt.scheduler.now()} ${child === undefined ? 'missing' : 'present'}`);
          if (child !== undefined || creates.length > 1) return;
          creates.push(vt.scheduler.now());
          await ctx.objects().create(cm(`owner-child-${readYourWrites}`, ''));
          return { requeue: true };
        },
      });
      const stop = new AbortController();
      const sub = ctrl.run(stop.signal).subscribe();
      await vt.advance(3_000);
      stop.abort();
      await vt.advance(100);
      sub.unsubscribe();
      return creates.length;
    };
    expect(await run(true)).toBe(1);
    expect(children.filter((c) => c.startsWith('true'))).toEqual(['true 0 missing', 'true 2000 present']);
    expect(await run(false)).toBe(2); // the duplicate create the gate prevents
  });

  it('writes of earlier reconciles to another namespace are not waited for (no informer may watch it)', async () => {
    const vt = virtualTime();
    const server = fakeServer(vt, [cm('owner', '1')], { watchDelayMs: Infinity });
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [...server.held.values()], events$: server.events$ });
    const runs: number[] = [];
    const ctrl = controller<ConfigMap>({
      name: 'ryw-other-namespace',
      for: source,
      client: server.client,
      scheduler: vt.scheduler,
      logger: quietLogger(),
      reconcile: async (req, ctx) => {
        runs.push(vt.scheduler.now());
        if (runs.length > 1) return;
        await ctx.objects(CONFIG_MAPS, 'elsewhere').create({ ...cm('far', ''), metadata: { name: 'far', namespace: 'elsewhere' } });
        return { requeueAfter: 100 };
      },
    });
    const stop = new AbortController();
    const sub = ctrl.run(stop.signal).subscribe();
    await vt.advance(1_000);
    stop.abort();
    await vt.advance(100);
    sub.unsubscribe();
    expect(runs).toEqual([0, 100]);
  });

  it('only the writing controller waits: another controller on the same cache is not gated', async () => {
    const vt = virtualTime();
    const server = fakeServer(vt, [cm('a', '1')], { watchDelayMs: 3_000 });
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [...server.held.values()], events$: server.events$ });
    const readerRuns: number[] = [];
    const writer = controller<ConfigMap>({
      name: 'ryw-writer',
      for: source,
      client: server.client,
      scheduler: vt.scheduler,
      logger: quietLogger(),
      reconcile: async (req, ctx) => {
        if (vt.scheduler.now() === 0) await ctx.objects().patch(req.name, { data: { w: '1' } });
      },
    });
    const readerKick = new Subject<InformerEvent<ConfigMap>>();
    const reader = controller<ConfigMap>({
      name: 'ryw-reader',
      for: source,
      watches: [{ source: fakeSource<ConfigMap>({ resource: CONFIG_MAPS, events$: readerKick }), map: () => ['ns/a'] }],
      client: server.client,
      scheduler: vt.scheduler,
      logger: quietLogger(),
      reconcile: () => void readerRuns.push(vt.scheduler.now()),
    });
    const stop = new AbortController();
    const subs = [writer.run(stop.signal).subscribe(), reader.run(stop.signal).subscribe()];
    await vt.advance(100);
    readerKick.next(added(cm('kick', '1')));
    await vt.advance(100);
    expect(readerRuns).toEqual([0, 100]);
    stop.abort();
    await vt.advance(5_000);
    for (const s of subs) s.unsubscribe();
  });

  it('a parked key is dropped at stop like a queued one: no timeout error, no aborted outcome, the run completes at once', async () => {
    // Parking (not a waiting worker): nothing runs while the key waits for its cache, so the stop
    // has nothing to wait for or abort (a waiting reconcile used to hold its worker until the
    // grace period ended, then be reported `aborted`).
    const vt = virtualTime();
    const server = fakeServer(vt, [cm('a', '1')], { watchDelayMs: Infinity });
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [...server.held.values()], events$: server.events$ });
    let runs = 0;
    const ctrl = controller<ConfigMap>({
      name: 'ryw-abort',
      for: source,
      client: server.client,
      scheduler: vt.scheduler,
      logger: quietLogger(),
      shutdownGracePeriodMs: 1_000,
      reconcile: async (req, ctx) => {
        runs++;
        await ctx.objects().patch(req.name, { data: { n: '1' } });
        return { requeue: true };
      },
    });
    const outcomes: ReconcileOutcome[] = [];
    let completedAt: number | undefined;
    const stop = new AbortController();
    ctrl.run(stop.signal).subscribe({ next: (x) => outcomes.push(x), complete: () => (completedAt = vt.scheduler.now()) });
    await vt.advance(2_000);
    stop.abort();
    await vt.advance(1_500);
    expect(runs).toBe(1);
    expect(completedAt).toBe(2_000);
    expect(outcomes.map((x) => x.kind)).toEqual(['requeue']);
    await vt.advance(20_000);
    expect(outcomes.some((x) => x.error instanceof ReadYourWritesTimeoutError)).toBe(false);
  });

  it('a key waiting for its cache is parked: it holds no worker (another key runs at once) and reports no outcome until it runs', async () => {
    const vt = virtualTime();
    const server = fakeServer(vt, [cm('a', '1'), cm('b', '1')], { watchDelayMs: 3_000 });
    const kick = new Subject<InformerEvent<ConfigMap>>();
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS, initial: [server.held.get('a') as ConfigMap], events$: server.events$ });
    const runs: string[] = [];
    const ctrl = controller<ConfigMap>({
      name: 'ryw-parked',
      for: source,
      // `b` comes in through another source, later, while `a` waits for its cache.
      watches: [{ source: fakeSource<ConfigMap>({ resource: CONFIG_MAPS, events$: kick }), map: (o) => [`ns/${o.metadata?.name ?? ''}`] }],
      client: server.client,
      scheduler: vt.scheduler,
      logger: quietLogger(),
      concurrency: 1,
      reconcile: async (req, ctx) => {
        runs.push(`${req.name}@${vt.scheduler.now()}`);
        if (req.name === 'a' && vt.scheduler.now() === 0) {
          await ctx.objects().patch(req.name, { data: { n: '1' } });
          return { requeue: true };
        }
        return undefined;
      },
    });
    const outcomes: ReconcileOutcome[] = [];
    const stop = new AbortController();
    const sub = ctrl.run(stop.signal).subscribe((x) => outcomes.push(x));
    await vt.advance(100);
    expect(outcomes.map((x) => `${x.key} ${x.kind}`)).toEqual(['ns/a requeue']); // the parked requeue is no outcome
    kick.next(added(cm('b', '1')));
    await vt.advance(100);
    // With one worker, b runs at once: a (parked until 3 000) does not hold the worker.
    expect(runs).toEqual(['a@0', 'b@100']);
    await vt.advance(3_000);
    expect(runs.slice(0, 3)).toEqual(['a@0', 'b@100', 'a@3000']);
    expect(outcomes.slice(0, 3).map((x) => `${x.key} ${x.kind} ${x.startedAt}`)).toEqual(['ns/a requeue 0', 'ns/b success 100', 'ns/a success 3000']);
    stop.abort();
    await vt.advance(1_000);
    sub.unsubscribe();
  });

  it('rejects an invalid readYourWrites option', () => {
    const source = fakeSource<ConfigMap>({ resource: CONFIG_MAPS });
    expect(() => controller({ name: 'ryw-bad-1', for: source, reconcile: () => undefined, readYourWrites: { timeoutMs: 0 } })).toThrow(ControllerBuildError);
    expect(() => controller({ name: 'ryw-bad-2', for: source, reconcile: () => undefined, readYourWrites: { maxTrackedWrites: 0.5 } })).toThrow(ControllerBuildError);
  });
});

describe('OwnWrites: the resourceVersion rule and the bounded map', () => {
  const write = (rv: string, extra: Partial<OwnWrite> = {}): OwnWrite => ({
    cluster: undefined,
    resource: '/ConfigMap',
    key: 'ns/a',
    deleted: false,
    object: cm('a', rv),
    rv,
    rvIsInt: /^\d+$/.test(rv),
    uid: 'uid-a',
    origin: 'ns/a',
    deadline: 10_000,
    seenBy: new Set(),
    bucket: { caches: [], writes: new Map() },
    ...extra,
  });

  it('compares integer resourceVersions as numbers (9 < 10), opaque ones by exact match only', () => {
    expect(cacheShows(write('10'), cm('a', '9'))).toBe(false);
    expect(cacheShows(write('10'), cm('a', '10'))).toBe(true);
    expect(cacheShows(write('10'), cm('a', '11'))).toBe(true);
    expect(cacheShows(write('x7'), cm('a', 'x8'))).toBe(false);
    expect(cacheShows(write('x7'), cm('a', 'x7'))).toBe(true);
    expect(cacheShows(write('10'), cm('a', '3', {}, 'another-uid'))).toBe(true); // recreated
    expect(cacheShows(write('10', { deleted: true }), undefined)).toBe(true);
    expect(cacheShows(write('10', { deleted: true }), cm('a', '10'))).toBe(false);
  });

  it('events: a newer integer version, any non-resync event for opaque versions, any delete', () => {
    const update = (rv: string, resync = false): InformerEvent => ({ type: 'update', old: cm('a', rv), object: cm('a', rv), resync });
    expect(eventShows(write('10'), update('9'))).toBe(false);
    expect(eventShows(write('10'), update('10'))).toBe(true);
    expect(eventShows(write('x7'), update('x8'))).toBe(true);
    expect(eventShows(write('x7'), update('x6', true))).toBe(false);
    expect(eventShows(write('10'), { type: 'delete', object: cm('a', '4') })).toBe(true);
  });

  it('keeps at most max writes, forgetting the oldest; drops a write once every cache of its type showed it', () => {
    const writes = new OwnWrites(2, 1_000);
    const c = writes.addCache(undefined, '/ConfigMap', new Indexer<KubeObject>());
    const input = (name: string, rv: string) => ({ cluster: undefined, resource: '/ConfigMap', key: `ns/${name}`, deleted: false, object: cm(name, rv), rv, uid: `uid-${name}` });
    writes.record(input('a', '2'), 'ns/a', 0);
    writes.record(input('b', '3'), 'ns/b', 0);
    writes.record(input('c', '4'), 'ns/c', 0);
    expect(writes.size).toBe(2);
    expect(writes.get(undefined, '/ConfigMap', 'ns/a')).toBeUndefined();
    writes.observe(c, { type: 'add', object: cm('b', '3'), isInInitialList: false });
    expect(writes.get(undefined, '/ConfigMap', 'ns/b')).toBeUndefined();
    expect(writes.byOriginKey('ns/c').map((w) => w.key)).toEqual(['ns/c']);
    // An event of another object past the write's version: the watch has passed it.
    writes.observe(c, { type: 'add', object: cm('z', '9'), isInInitialList: false });
    const pending = writes.get(undefined, '/ConfigMap', 'ns/c') as OwnWrite;
    expect(writes.dropIfShownEverywhere(pending)).toBe(true);
    expect(writes.size).toBe(0);
  });

  it('the watch has passed a write once an event of any object carries its version or a newer one (numerically: 9 < 10)', () => {
    const writes = new OwnWrites(10, 1_000);
    const c = writes.addCache(undefined, '/ConfigMap', new Indexer<KubeObject>());
    writes.record({ cluster: undefined, resource: '/ConfigMap', key: 'ns/a', deleted: false, object: cm('a', '10'), rv: '10', uid: 'uid-a' }, 'ns/a', 0);
    const pending = writes.get(undefined, '/ConfigMap', 'ns/a') as OwnWrite;
    writes.observe(c, { type: 'add', object: cm('z', '9'), isInInitialList: false });
    expect(writes.dropIfShownEverywhere(pending)).toBe(false);
    writes.observe(c, { type: 'add', object: cm('y', '11'), isInInitialList: false });
    expect(writes.dropIfShownEverywhere(pending)).toBe(true);
  });

  it('ignores writes of types the controller does not watch', () => {
    const writes = new OwnWrites(10, 1_000);
    writes.record({ cluster: undefined, resource: 'apps/Deployment', key: 'ns/d', deleted: false, object: undefined, rv: '5', uid: undefined }, 'ns/d', 0);
    expect(writes.size).toBe(0);
  });
});

describe('writeOf: what a write answer records', () => {
  it('an object at its version; a Scale as a version only; a delete by its Status or its path; nothing for other Status answers', () => {
    const DEPLOYMENTS = { apiVersion: 'apps/v1', kind: 'Deployment' };
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'ns', name: 'web', resourceVersion: '7', uid: 'u' } };
    expect(writeOf(DEPLOYMENTS, 'PATCH', '/apis/apps/v1/namespaces/ns/deployments/web', d)).toMatchObject({ resource: 'apps/Deployment', key: 'ns/web', rv: '7', deleted: false, object: d });
    const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { namespace: 'ns', name: 'web', resourceVersion: '8' } };
    expect(writeOf(DEPLOYMENTS, 'PUT', '/apis/apps/v1/namespaces/ns/deployments/web/scale', scale)).toMatchObject({ key: 'ns/web', rv: '8', object: undefined });
    const status = { kind: 'Status', status: 'Success', details: { name: 'web', uid: 'u' } };
    expect(writeOf(DEPLOYMENTS, 'DELETE', '/apis/apps/v1/namespaces/ns/deployments/web', status)).toMatchObject({ key: 'ns/web', deleted: true, uid: 'u' });
    expect(writeOf(CONFIG_MAPS, 'DELETE', '/api/v1/namespaces/ns/configmaps/a', undefined)).toMatchObject({ key: 'ns/a', deleted: true });
    expect(writeOf({ apiVersion: 'v1', kind: 'Namespace' }, 'DELETE', '/api/v1/namespaces/gone', { kind: 'Status', status: 'Success' })).toMatchObject({ key: 'gone', deleted: true });
    const terminating = { ...d, metadata: { ...d.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    expect(writeOf(DEPLOYMENTS, 'DELETE', '/apis/apps/v1/namespaces/ns/deployments/web', terminating)).toMatchObject({ deleted: false, rv: '7' });
    expect(writeOf({ apiVersion: 'v1', kind: 'Pod' }, 'POST', '/api/v1/namespaces/ns/pods/p/eviction', status)).toBeUndefined();
    expect(writeOf(CONFIG_MAPS, 'DELETE', '/api/v1/namespaces/ns/configmaps', { kind: 'ConfigMapList', metadata: {}, items: [] })).toBeUndefined();
  });
});
