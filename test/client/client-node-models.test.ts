// fromClientNode / toClientNode: rxkube's wire-shaped objects ↔ @kubernetes/client-node's models.
import { CoreV1Api, CoreV1Event, EventsV1Event, loadYaml, V1CustomResourceDefinition, V1MicroTime, V1ObjectMeta, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { K8s } from '../../src/api/k8s.js';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { fromClientNode, toClientNode } from '../../src/client/client-node-models.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const pod: K8s.Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-0',
    namespace: 'default',
    creationTimestamp: '2024-05-06T07:08:09Z',
    labels: { app: 'web' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u1', controller: true }],
  },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 }] }] },
  status: {
    phase: 'Running',
    startTime: '2024-05-06T07:08:10Z',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-06T07:08:11Z' }],
    containerStatuses: [
      { name: 'c', image: 'nginx:1', imageID: 'x', ready: true, restartCount: 0, state: { running: { startedAt: '2024-05-06T07:08:10Z' } } },
    ],
  },
};

describe('toClientNode / fromClientNode', () => {
  it('a Pod becomes a V1Pod with Date timestamps, nested ones included, and comes back unchanged', () => {
    const model = toClientNode<V1Pod>(pod);
    expect(model).toBeInstanceOf(V1Pod);
    expect(model.metadata).toBeInstanceOf(V1ObjectMeta);
    expect(model.metadata?.creationTimestamp).toEqual(new Date('2024-05-06T07:08:09Z'));
    expect(model.status?.conditions?.[0]?.lastTransitionTime).toEqual(new Date('2024-05-06T07:08:11Z'));
    expect(model.status?.containerStatuses?.[0]?.state?.running?.startedAt).toEqual(new Date('2024-05-06T07:08:10Z'));
    expect(fromClientNode(model, resources.pods)).toEqual(pod);
  });

  it("agrees with client-node's own deserializer (loadYaml) on the model it builds", () => {
    expect(toClientNode(pod)).toEqual(loadYaml<V1Pod>(JSON.stringify(pod)));
  });

  it('writes Times as RFC 3339 (no fraction for whole seconds) and MicroTimes with six fractional digits', () => {
    const meta = new V1ObjectMeta();
    meta.name = 'e';
    meta.creationTimestamp = new Date('2024-01-02T03:04:05.000Z');
    const event = new CoreV1Event();
    event.metadata = meta;
    event.involvedObject = { kind: 'Pod', name: 'web-0' };
    event.eventTime = new V1MicroTime('2024-01-02T03:04:05.678Z');
    event.lastTimestamp = new Date('2024-01-02T03:04:05.678Z');
    const wire = fromClientNode(event, resources.events);
    expect(wire.metadata?.creationTimestamp).toBe('2024-01-02T03:04:05Z');
    expect(wire.lastTimestamp).toBe('2024-01-02T03:04:05.678Z');
    expect(wire.eventTime).toBe('2024-01-02T03:04:05.678000Z');
    expect(wire.involvedObject).toEqual({ kind: 'Pod', name: 'web-0' });
    const model = toClientNode<CoreV1Event>(wire, resources.events);
    expect(model.eventTime).toBeInstanceOf(V1MicroTime);
    expect(model.eventTime?.getTime()).toBe(Date.parse('2024-01-02T03:04:05.678Z'));
  });

  it('picks the model of the kind’s group where two groups share a kind (CoreV1Event, EventsV1Event)', () => {
    expect(toClientNode({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'a' } })).toBeInstanceOf(CoreV1Event);
    expect(toClientNode({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'a' } })).toBeInstanceOf(EventsV1Event);
  });

  it('maps renamed fields (a CRD schema: x-kubernetes-… ↔ x_kubernetes_…, default ↔ _default) both ways', () => {
    // kubernetes-types' JSONSchemaProps has no x-kubernetes-… fields: declared apart, not as a fresh literal.
    const openAPIV3Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', default: {} } } };
    const crd: K8s.CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema },
          },
        ],
      },
    };
    const model = toClientNode<V1CustomResourceDefinition>(crd);
    const schema = model.spec.versions[0]?.schema?.openAPIV3Schema;
    expect(schema?.x_kubernetes_preserve_unknown_fields).toBe(true);
    expect(schema?.properties?.['spec']?._default).toEqual({});
    expect(fromClientNode(model, resources.customResourceDefinitions)).toEqual(crd);
  });

  it('a custom resource: metadata is converted, the rest kept as is', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { at: '2024-01-01T00:00:00Z' } };
    const model = toClientNode(widget) as unknown as { metadata: V1ObjectMeta; spec: { at: string } };
    expect(model.metadata.creationTimestamp).toEqual(new Date('2024-01-01T00:00:00Z'));
    expect(model.spec.at).toBe('2024-01-01T00:00:00Z');
    expect(fromClientNode(model)).toEqual(widget);
  });

  it('keeps fields client-node does not know (its serializer would drop them)', () => {
    const newer = { ...pod, spec: { ...pod.spec, containers: [], futureField: { a: 1 } } } as K8s.Pod;
    const back = fromClientNode<UnstructuredObject>(toClientNode(newer));
    expect((back['spec'] as { futureField?: unknown }).futureField).toEqual({ a: 1 });
  });

  it('takes apiVersion and kind from the resource type when the model lacks them (list items)', () => {
    const model = toClientNode<V1Pod>(pod);
    delete model.apiVersion;
    delete model.kind;
    const wire = fromClientNode(model, resources.pods);
    expect(wire.metadata?.creationTimestamp).toBe('2024-05-06T07:08:09Z');
    expect(wire.status?.startTime).toBe('2024-05-06T07:08:10Z');
    expect(() => fromClientNode(null as unknown as object)).toThrow(TypeError);
  });

  describe('with client-node and rxkube reading the same server', () => {
    let server: ApiServer;
    let client: KubeClient;
    beforeAll(async () => {
      server = await startApiServer({ tls: true });
      client = KubeClient.fromKubeConfig(server.kubeConfig);
    });
    afterAll(async () => {
      client.close();
      await server.close();
    });

    it("fromClientNode(item of CoreV1Api.listNamespacedPod) is rxkube's own object", async () => {
      const created = await client.objects(resources.pods, 'default').create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      const core = server.kubeConfig.makeApiClient(CoreV1Api);
      const list = await core.listNamespacedPod({ namespace: 'default' });
      const item = list.items.find((p) => p.metadata?.name === 'p');
      expect(item?.metadata?.creationTimestamp).toBeInstanceOf(Date);
      const { apiVersion: _a, kind: _k, ...rest } = created;
      expect(fromClientNode(item ?? {}, resources.pods)).toMatchObject(rest);
    });
  });
});
