/**
 * Tier 2: a controller over real HTTP against the embedded API server — a custom resource
 * (defined by a CRD) mirrored into a ConfigMap, through shared informers, with owns, a finalizer,
 * drift repair, deletes, dropped watches and a server restart.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { Controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { CONFIG_MAPS, FINALIZER, mirrorController, mirrorName } from './widget-controller.js';
import { eventually } from '../helpers/eventually.js';

const WIDGETS: ResourceType = { apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets', namespaced: true };
const CRDS: ResourceType = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const widget = (name: string, data: Record<string, string>): UnstructuredObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec: { data },
});

describe('controller against the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  let factory: InformerFactory;
  let ctrl: Controller;
  let stop: AbortController;
  let done: Promise<void>;
  const registry = new Registry();

  const mirror = (name: string) => server.get('v1', 'ConfigMap', mirrorName(name), 'default');

  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    await client.objects(CRDS).create(crd);
    factory = new InformerFactory(client, { namespace: 'default' });
    ctrl = mirrorController({ name: 'widget-mirror', for: WIDGETS, sourceResource: WIDGETS, informers: factory, client, metricsRegistry: registry });
    stop = new AbortController();
    done = ctrl.start(stop.signal);
  });
  afterAll(async () => {
    stop.abort();
    await done;
    client.close();
    await server.close();
  });

  it('creates the mirror with an owner reference and adds the finalizer', async () => {
    await client.objects(WIDGETS, 'default').create(widget('w1', { a: '1' }));
    await eventually(() => expect(mirror('w1')?.data).toEqual({ a: '1' }));
    const w1 = server.get('example.com/v1', 'Widget', 'w1', 'default') as KubeObject;
    expect(w1.metadata?.finalizers).toEqual([FINALIZER]);
    expect(mirror('w1')?.metadata?.ownerReferences).toMatchObject([{ kind: 'Widget', name: 'w1', uid: w1.metadata?.uid, controller: true }]);
  });

  it('follows spec changes and repairs drift of the owned ConfigMap (owns)', async () => {
    const w = client.objects(WIDGETS, 'default');
    await w.patch('w1', { spec: { data: { a: '2', b: '3' } } });
    await eventually(() => expect(mirror('w1')?.data).toEqual({ a: '2', b: '3' }));
    await client.objects(CONFIG_MAPS, 'default').patch(mirrorName('w1'), { data: { a: 'tampered', b: null } });
    await eventually(() => expect(mirror('w1')?.data).toEqual({ a: '2', b: '3' }));
  });

  it('cleans up through the finalizer when the widget is deleted', async () => {
    await client.objects(WIDGETS, 'default').create(widget('w2', { x: 'y' }));
    await eventually(() => expect(mirror('w2')?.data).toEqual({ x: 'y' }));
    await client.objects(WIDGETS, 'default').delete('w2');
    await eventually(() => {
      expect(mirror('w2')).toBeUndefined();
      expect(server.get('example.com/v1', 'Widget', 'w2', 'default')).toBeUndefined();
    });
  });

  it('converges after churn, dropped watches and a server restart', async () => {
    const w = client.objects(WIDGETS, 'default');
    const names = Array.from({ length: 20 }, (_, i) => `c${i}`);
    await Promise.all(names.map((n) => w.create(widget(n, { v: '0' }))));
    server.faults.dropWatches({ abrupt: true });
    for (let round = 1; round <= 3; round++) {
      await Promise.all(names.map((n) => w.patch(n, { spec: { data: { v: String(round) } } })));
    }
    await server.faults.restart(200);
    await Promise.all(names.slice(0, 5).map((n) => w.delete(n)));
    await eventually(() => {
      for (const n of names.slice(5)) expect(mirror(n)?.data, n).toEqual({ v: '3' });
      for (const n of names.slice(0, 5)) {
        expect(mirror(n), n).toBeUndefined();
        expect(server.get('example.com/v1', 'Widget', n, 'default'), n).toBeUndefined();
      }
    }, 20_000);
  });

  it('records controller-runtime metrics under the controller name', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="widget-mirror",result="success"\} [1-9]/);
    expect(text).toContain('workqueue_adds_total{name="widget-mirror",controller="widget-mirror"}');
  });
});
