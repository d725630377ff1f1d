/**
 * Tier 3: a controller that keeps a ConfigMap in sync with a custom resource defined by a CRD, on
 * a real kube-apiserver (KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED are set by .ci/run),
 * through churn and a kube-apiserver restart. In the end every Widget's mirror holds its
 * `spec.data`, and deleted Widgets are gone together with their mirrors (the finalizer ran).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { Controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { CONFIG_MAPS, type ConfigMap, mirrorController, mirrorProblems } from '../controller/widget-controller.js';
import { convergeWithin, hasCluster, sleep, persist, restartApiServer, statusTimeline } from './helpers/cluster.js';


const GROUP = 'e2e.rxkube.dev';
const WIDGETS: ResourceType = { apiVersion: `${GROUP}/v1`, kind: 'Widget', plural: 'widgets', namespaced: true };
const CRDS: ResourceType = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
type Widget = KubeObject & { spec?: { data?: Record<string, string> } };

describe.skipIf(!hasCluster)('CRD-backed controller against a real kube-apiserver', () => {
  const ns = `crd-e2e-${randomBytes(3).toString('hex')}`;
  let client: KubeClient;
  let writer: KubeClient;
  let factory: InformerFactory;
  let ctrl: Controller;
  let stop: AbortController;
  let done: Promise<void>;
  const timeline = statusTimeline();

  beforeAll(async () => {
    client = KubeClient.fromDefault();
    writer = KubeClient.fromDefault();
    await writer.objects(CRDS).create(crd).catch((err: unknown) => {
      if (!(err as { reason?: string }).reason?.includes('AlreadyExists')) throw err;
    });
    await writer.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // The CRD is served once Established; discovery picks it up then.
    for (let i = 0; ; i++) {
      const got = (await writer.objects(CRDS).get(`widgets.${GROUP}`)) as KubeObject & {
        status?: { conditions?: { type: string; status: string }[] };
      };
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (i > 100) throw new Error('CRD not established');
      await sleep(100);
    }
    factory = new InformerFactory(client, { namespace: ns, listWatch: { status: timeline.status } });
    ctrl = mirrorController({ name: `widget-mirror-${ns}`, for: WIDGETS, sourceResource: WIDGETS, informers: factory, client, concurrency: 4 });
    stop = new AbortController();
    done = ctrl.start(stop.signal);
  }, 60_000);

  afterAll(async () => {
    stop?.abort();
    await done;
    const widgets = writer.objects<Widget>(WIDGETS, ns);
    for (const w of (await widgets.list().catch(() => ({ items: [] as Widget[] }))).items) {
      await widgets.patch(w.metadata?.name ?? '', { metadata: { finalizers: null } }).catch(() => undefined);
    }
    await writer.objects(NAMESPACES).delete(ns).catch(() => undefined);
    client?.close();
    writer?.close();
  }, 60_000);

  it('keeps each Widget mirrored into a ConfigMap through churn and a kube-apiserver restart', async () => {
    const widgets = writer.objects<Widget>(WIDGETS, ns);
    const cms = writer.objects<ConfigMap>(CONFIG_MAPS, ns);
    const names = Array.from({ length: 20 }, (_, i) => `w-${i}`);
    const t0 = Date.now();
    await Promise.all(
      names.map((n) => persist(() => widgets.create({ apiVersion: WIDGETS.apiVersion, kind: 'Widget', metadata: { name: n, namespace: ns }, spec: { data: { v: '0', name: n } } }))),
    );
    const churn = (round: number) => Promise.all(names.map((n) => persist(() => widgets.patch(n, { spec: { data: { v: String(round) } } }))));
    await churn(1);
    const restart = restartApiServer(2);
    await churn(2);
    await restart;
    await churn(3);
    const deleted = names.slice(0, 4);
    await Promise.all(deleted.map((n) => persist(() => widgets.delete(n))));
    await churn(4);

    await convergeWithin(90_000, async () => {
      const ws = new Map((await widgets.list()).items.map((o) => [o.metadata?.name ?? '', o] as const));
      const ms = new Map((await cms.list()).items.map((o) => [o.metadata?.name ?? '', o] as const));
      return mirrorProblems(names, deleted, ws, ms);
    }).catch((err: unknown) => {
      console.log(`CRD controller e2e: informer status timeline\n${timeline.print()}`);
      throw err;
    });
    console.log(`CRD controller e2e: converged ${Date.now() - t0} ms after the first write`);
    // The server is there; the cache follows through the watch (the last finalizer removals may
    // still be on their way when the server-side check passes).
    await convergeWithin(30_000, async () =>
      ctrl.store.size === names.length - deleted.length ? [] : [`controller cache holds ${ctrl.store.size} Widgets, the server ${names.length - deleted.length}`],
    ).catch((err: unknown) => {
      console.log(`CRD controller e2e: informer status timeline\n${timeline.print()}`);
      throw err;
    });
    expect([...ctrl.store.listKeys()].sort()).toEqual(names.filter((n) => !deleted.includes(n)).map((n) => `${ns}/${n}`).sort());
  }, 240_000);
});
