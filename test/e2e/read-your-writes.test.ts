/**
 * Tier 3: read-your-writes (issue 27, item 3) against a real kube-apiserver 1.20 (started by
 * shared/kube-apiserver/start.sh; KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED set by .ci/run).
 *
 * The controller's informer gets its watch events {@link WATCH_DELAY_MS} late (a transport hook:
 * the informer factory's list-watcher delays every watch event; lists and writes are not
 * delayed), as a lagging watch would. The first reconcile of each object writes it through `ctx`
 * (a patch of one, a delete of the other) and requeues; the requeue is due after the rate
 * limiter's first delay (5 ms), long before the watch event arrives. With read-your-writes on
 * (the default) that reconcile waits until the cache shows the write and reads it; with it off
 * (the negative control) the same reconcile reads the stale copy — asserted, so the control
 * proves the delay really produces a stale read.
 */
import { randomBytes } from 'node:crypto';
import { delay } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListWatcher } from '../../src/api/list-watcher.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { hasCluster, sleep } from './helpers/cluster.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false } as const;
type ConfigMap = KubeObject & { data?: Record<string, string> };

/** How late the informer sees each watch event: far beyond the 5 ms requeue. */
const WATCH_DELAY_MS = 2_000;

/** The transport of an informer whose watch events arrive `ms` late (in order). */
function lateWatch(lw: ListWatcher, ms: number): ListWatcher {
  return {
    ...(lw.supportsStreamingList === undefined ? {} : { supportsStreamingList: lw.supportsStreamingList }),
    list: (o) => lw.list(o),
    watch: (o) => lw.watch(o).pipe(delay(ms)),
  };
}

interface SecondRead {
  readonly written: string;
  readonly read: string | undefined;
  readonly data: string | undefined;
  /** What the informer's cache itself held then (not through `ctx`). */
  readonly cached: string | undefined;
}

describe.skipIf(!hasCluster)('read-your-writes against a real kube-apiserver, watch delayed', () => {
  const ns = `ryw-e2e-${randomBytes(3).toString('hex')}`;
  let client: KubeClient;

  beforeAll(async () => {
    client = KubeClient.fromDefault();
    await client.objects(NAMESPACE).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }, 60_000);

  afterAll(async () => {
    await client?.objects(NAMESPACE).delete(ns, { ignoreNotFound: true });
    client?.close();
  });

  /** Runs a controller over `p-<mode>` (patched) and `d-<mode>` (deleted); returns each one's second read. */
  async function secondReads(mode: 'on' | 'off'): Promise<{ patched: SecondRead; deleted: SecondRead }> {
    const cms = client.objects<ConfigMap>(CONFIG_MAPS, ns);
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `p-${mode}` }, data: { n: '0' } });
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `d-${mode}` }, data: { n: '0' } });
    const factory = new InformerFactory((resource, scope) => lateWatch(client.listWatcher(resource, scope), WATCH_DELAY_MS), { namespace: ns });
    const written = new Map<string, string>();
    const reads = new Map<string, SecondRead>();
    const ctrl = controller<ConfigMap>({
      name: `ryw-e2e-${mode}-${ns}`,
      for: CONFIG_MAPS,
      informers: factory,
      client,
      ...(mode === 'off' ? { readYourWrites: false } : {}), // on by default
      reconcile: async (req, ctx) => {
        // The namespace still holds the other case's objects: only this case's two are its subject.
        if (req.name !== `p-${mode}` && req.name !== `d-${mode}`) return;
        const before = written.get(req.name);
        if (before !== undefined) {
          if (!reads.has(req.name)) {
            const cached = factory.for(CONFIG_MAPS).store.get(`${ns}/${req.name}`)?.metadata?.resourceVersion;
            reads.set(req.name, { written: before, read: ctx.object?.metadata?.resourceVersion, data: ctx.object?.data?.n, cached });
          }
          return;
        }
        if (req.name.startsWith('p-')) {
          const patched = await ctx.objects().patch(req.name, { data: { n: '1' } });
          written.set(req.name, patched.metadata?.resourceVersion ?? '');
        } else {
          // The delete's own revision is not in its answer: the object's last one stands for it.
          written.set(req.name, ctx.object?.metadata?.resourceVersion ?? '');
          await ctx.objects().delete(req.name);
        }
        return { requeue: true };
      },
    });
    const stop = new AbortController();
    const done = ctrl.start(stop.signal);
    const deadline = Date.now() + 60_000;
    const bothRead = (): boolean => reads.has(`p-${mode}`) && reads.has(`d-${mode}`);
    while (!bothRead() && Date.now() < deadline) await sleep(50);
    stop.abort();
    await done;
    const patched = reads.get(`p-${mode}`);
    const deleted = reads.get(`d-${mode}`);
    if (patched === undefined || deleted === undefined) throw new Error(`mode ${mode}: no second reconcile within 60 s`);
    return { patched, deleted };
  }

  it('on (the default): the reconcile after an own patch and an own delete reads them, not the stale copies', async () => {
    const { patched, deleted } = await secondReads('on');
    expect(BigInt(patched.read ?? '0') >= BigInt(patched.written)).toBe(true);
    expect(patched.data).toBe('1');
    // The reconcile started only once the cache itself had caught up (not only ctx's view of it).
    expect(BigInt(patched.cached ?? '0') >= BigInt(patched.written)).toBe(true);
    expect(deleted.read).toBeUndefined();
    expect(deleted.cached).toBeUndefined();
  });

  it('off (negative control): the same reconciles read the stale copies', async () => {
    const { patched, deleted } = await secondReads('off');
    expect(BigInt(patched.read ?? '0') < BigInt(patched.written)).toBe(true);
    expect(patched.data).toBe('0');
    expect(patched.cached).toBe(patched.read);
    expect(deleted.read).toBe(deleted.written); // still cached, though gone from the server
  });
});
