/**
 * Tier 3: a controller against a real kube-apiserver (started by shared/kube-apiserver/start.sh;
 * KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED are set by .ci/run).
 *
 * The controller keeps a ConfigMap `<name>-mirror` in sync with every source ConfigMap labelled
 * `mirror-source=yes` (built-ins only: the kube-apiserver 1.20 build here crashes when a custom
 * object is written). `for` and `owns` are the same resource, so both registrations share one
 * informer. A second client churns sources (creates, updates, deletes) and tampers with mirrors
 * while kube-apiserver is restarted; in the end every mirror must equal its source, deleted
 * sources must have lost their mirror and be gone (the finalizer ran and was removed).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelSelectorPredicate } from '../../src/informer/predicates.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { Controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { CONFIG_MAPS, type ConfigMap, FINALIZER, mirrorController, mirrorName, mirrorProblems } from '../controller/widget-controller.js';
import { convergeWithin, hasCluster, sleep, persist, restartApiServer, statusTimeline } from './helpers/cluster.js';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false } as const;

describe.skipIf(!hasCluster)('controller against a real kube-apiserver', () => {
  const ns = `ctrl-e2e-${randomBytes(3).toString('hex')}`;
  let controllerClient: KubeClient;
  let writer: KubeClient;
  let factory: InformerFactory;
  let ctrl: Controller;
  let stop: AbortController;
  let done: Promise<void>;
  let eventsSub: { unsubscribe(): void } | undefined;
  const reconcileErrors: unknown[] = [];
  const timeline = statusTimeline(async () => {
    const list = await writer.objects(CONFIG_MAPS, ns).list();
    return `the controller caches ${ctrl?.store.size ?? '?'} ConfigMaps; a second client lists ${list.items.length} at resourceVersion ${list.metadata?.resourceVersion ?? '?'}: ${list.items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).join(' ')}`;
  });
  const traces: string[] = [];
  const t0Trace = Date.now();

  beforeAll(async () => {
    controllerClient = KubeClient.fromDefault();
    writer = KubeClient.fromDefault();
    await writer.objects(NAMESPACE).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    factory = new InformerFactory(controllerClient, { namespace: ns, listWatch: { status: timeline.status } });
    ctrl = mirrorController({
      name: `mirror-${ns}`,
      for: { source: CONFIG_MAPS, predicates: [labelSelectorPredicate('mirror-source=yes')] },
      sourceResource: CONFIG_MAPS,
      trace: (what, source, detail) => void traces.push(`+${Date.now() - t0Trace}ms ${source} ${what} ${JSON.stringify(detail)}`),
      informers: factory,
      client: controllerClient,
      concurrency: 4,
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: (_m, f) => void reconcileErrors.push(f?.err),
        child() {
          return this;
        },
      },
    });
    // What the controller's informer delivers, for the trace (sources only, by name).
    eventsSub = factory.for(CONFIG_MAPS).events$.subscribe((e) => {
      const o = (e.type === 'delete' && 'key' in e.object ? (e.object as { object?: ConfigMap }).object : e.object) as ConfigMap | undefined;
      const name = o?.metadata?.name ?? '';
      if (!/^src-\d+$/.test(name)) return;
      traces.push(`+${Date.now() - t0Trace}ms ${name} informer ${e.type} ${JSON.stringify({ rv: o?.metadata?.resourceVersion, uid: o?.metadata?.uid?.slice(0, 8), deleting: o?.metadata?.deletionTimestamp !== undefined, finalizers: o?.metadata?.finalizers, tombstone: e.type === 'delete' && 'key' in e.object })}`);
    });
    stop = new AbortController();
    done = ctrl.start(stop.signal);
  }, 60_000);

  afterAll(async () => {
    eventsSub?.unsubscribe();
    stop?.abort();
    await done;
    // drop our finalizers so the namespace can go
    const cms = writer.objects(CONFIG_MAPS, ns);
    for (const cm of (await cms.list().catch(() => ({ items: [] as ConfigMap[] }))).items) {
      if (cm.metadata?.finalizers?.includes(FINALIZER)) {
        await cms.patch(cm.metadata.name ?? '', { metadata: { finalizers: null } }).catch(() => undefined);
      }
    }
    await writer.objects(NAMESPACE).delete(ns).catch(() => undefined);
    controllerClient?.close();
    writer?.close();
  }, 60_000);

  it('keeps mirrors in sync through churn, tampering and a kube-apiserver restart', async () => {
    const cms = writer.objects(CONFIG_MAPS, ns);
    const names = Array.from({ length: 30 }, (_, i) => `src-${i}`);
    const source = (name: string, v: string): ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, labels: { 'mirror-source': 'yes' } },
      data: { v, name },
    });
    const t0 = Date.now();
    await Promise.all(names.map((n) => persist(() => cms.create(source(n, '0')))));

    const churn = async (round: number): Promise<void> => {
      await Promise.all(names.map((n) => persist(() => cms.patch(n, { data: { v: String(round) } }))));
      // tamper with some mirrors: the owns watch must repair them
      await Promise.all(names.slice(10, 15).map((n) => persist(() => cms.patch(mirrorName(n), { data: { v: 'tampered' } }))));
    };
    await churn(1);
    traces.push(`+${Date.now() - t0Trace}ms - restart begins`);
    const restart = restartApiServer(2);
    await churn(2);
    await restart;
    traces.push(`+${Date.now() - t0Trace}ms - restart done`);
    await churn(3);
    const deleted = names.slice(0, 5);
    await Promise.all(
      deleted.map(async (n) => {
        traces.push(`+${Date.now() - t0Trace}ms ${n} test deletes it`);
        let answer: unknown;
        await persist(async () => {
          answer = await cms.delete(n);
        });
        const m = (answer as ConfigMap | undefined)?.metadata;
        traces.push(`+${Date.now() - t0Trace}ms ${n} test delete answered ${JSON.stringify({ kind: (answer as { kind?: string } | undefined)?.kind, rv: m?.resourceVersion, deleting: m?.deletionTimestamp !== undefined, finalizers: m?.finalizers })}`);
      }),
    );
    await churn(4);

    // converge: every live source mirrored exactly, every deleted one gone with its mirror
    await convergeWithin(90_000, async () => {
      const all = new Map((await cms.list()).items.map((o) => [o.metadata?.name ?? '', o] as const));
      return mirrorProblems(names, deleted, all, all);
    }).catch(async (err: unknown) => {
      // What a failure needs to be understood: the informer's view over time and the leftovers' history.
      const left = (await cms.list()).items.filter((o) => deleted.some((d) => o.metadata?.name === mirrorName(d)));
      const history = left.map((o) => ({ name: o.metadata?.name, created: o.metadata?.creationTimestamp, rv: o.metadata?.resourceVersion, owner: o.metadata?.ownerReferences?.[0]?.uid, managedFields: o.metadata?.managedFields }));
      const sources = new Set(left.map((o) => (o.metadata?.name ?? '').replace(/-mirror$/, '')));
      const theirTraces = traces.filter((l) => sources.has(l.split(' ')[1] ?? '') || l.split(' ')[1] === '-');
      console.log(`controller e2e: leftover mirrors ${JSON.stringify(history)}; t0 ${new Date(t0).toISOString()} (trace t0 ${new Date(t0Trace).toISOString()})\nwhat the controller did for them\n${theirTraces.join('\n')}\ninformer status timeline\n${timeline.print()}`);
      throw err;
    });
    const kinds = new Map<string, number>();
    for (const e of reconcileErrors) {
      const k = (e as { reason?: string; name?: string } | undefined)?.reason || (e as Error | undefined)?.name || String(e);
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    console.log(`controller e2e: converged ${Date.now() - t0} ms after the first write; reconcile errors (retried): ${JSON.stringify(Object.fromEntries(kinds))}`);
    expect(ctrl.store.size).toBeGreaterThanOrEqual(names.length - deleted.length);
  }, 240_000);

  it('a source created while the controller runs gets its mirror; deleting the mirror recreates it', async () => {
    const cms = writer.objects(CONFIG_MAPS, ns);
    await cms.create({ metadata: { name: 'late', labels: { 'mirror-source': 'yes' } }, data: { k: 'v' } });
    const waitFor = async (check: () => Promise<boolean>): Promise<void> => {
      const end = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > end) throw new Error('timed out');
        await sleep(100);
      }
    };
    const mirrorData = async () => ((await cms.get(mirrorName('late')).catch(() => undefined)) as ConfigMap | undefined)?.data;
    await waitFor(async () => (await mirrorData())?.k === 'v');
    await cms.delete(mirrorName('late'));
    await waitFor(async () => (await mirrorData())?.k === 'v');
  }, 60_000);
});
