/**
 * CRD conversion in the embedded API server: `strategy: None` sets the apiVersion; `strategy:
 * Webhook` calls a ConversionReview endpoint (a plain node:https server) for reads, lists and
 * write answers in another version than the object was written in; failures answered as
 * kube-apiserver 1.20 does.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';
import { startFakeWebhook, type FakeWebhook, type Json } from './webhook-fixture.js';

type Review = Json & { request: Json & { objects: (Json & { spec?: Json })[]; desiredAPIVersion: string; uid: string } };

/** v1 has `spec.size`, v2 `spec.replicas`. */
function convert(review: Json & { request: Json }): Json {
  const req = (review as Review).request;
  const convertedObjects = req.objects.map((o) => {
    const spec = { ...(o.spec ?? {}) };
    if (req.desiredAPIVersion.endsWith('/v2') && 'size' in spec) {
      spec['replicas'] = spec['size'];
      delete spec['size'];
    } else if (req.desiredAPIVersion.endsWith('/v1') && 'replicas' in spec) {
      spec['size'] = spec['replicas'];
      delete spec['replicas'];
    }
    return { ...o, apiVersion: req.desiredAPIVersion, spec };
  });
  return { apiVersion: review['apiVersion'], kind: 'ConversionReview', response: { uid: req.uid, convertedObjects, result: { status: 'Success' } } };
}

describe('embedded API server: CRD conversion', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  let wh: FakeWebhook;

  const crd = (group: string, conversion: Json | undefined): Json => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
      ...(conversion !== undefined ? { conversion } : {}),
    },
  });
  const webhookConversion = (url: string): Json => ({ strategy: 'Webhook', webhook: { clientConfig: { url, caBundle: wh.caBundle }, conversionReviewVersions: ['v1'] } });

  beforeAll(async () => {
    wh = await startFakeWebhook(convert);
    server = await startApiServer();
    call = makeClient(server.url);
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('none.example.com', undefined))).status).toBe(201);
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('hook.example.com', webhookConversion(`${wh.url}/convert`)))).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await wh?.close();
  });
  afterEach(() => {
    wh.calls.length = 0;
    wh.handler = convert;
  });

  const widget = (group: string, version: string, name: string, spec: Json): Json => ({ apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name, labels: { a: 'b' } }, spec });

  it('strategy None: an object written in v1 reads as v2 (apiVersion set)', async () => {
    await call('POST', '/apis/none.example.com/v1/namespaces/default/widgets', widget('none.example.com', 'v1', 'n', { size: 1 }));
    const got = await call('GET', '/apis/none.example.com/v2/namespaces/default/widgets/n');
    expect([got.body.apiVersion, got.body.spec]).toEqual(['none.example.com/v2', { size: 1 }]);
    const list = await call('GET', '/apis/none.example.com/v2/namespaces/default/widgets');
    expect(list.body.items.map((i: Json) => i['apiVersion'])).toEqual(['none.example.com/v2']);
    const watch = await openWatch(server.url, '/apis/none.example.com/v2/namespaces/default/widgets?watch=true');
    try {
      const [added] = await watch.next(1);
      expect(added?.object['apiVersion']).toBe('none.example.com/v2');
    } finally {
      watch.close();
    }
  });

  it('strategy Webhook: reads, lists and write answers in another version go through the ConversionReview endpoint', async () => {
    const created = await call('POST', '/apis/hook.example.com/v1/namespaces/default/widgets', widget('hook.example.com', 'v1', 'w', { size: 3 }));
    expect([created.status, created.body.spec]).toEqual([201, { size: 3 }]);
    expect(wh.calls).toHaveLength(0);
    const got = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/w');
    expect([got.body.apiVersion, got.body.spec, got.body.metadata.name, got.body.metadata.labels]).toEqual(['hook.example.com/v2', { replicas: 3 }, 'w', { a: 'b' }]);
    const review = wh.calls[0]!.review as Review;
    expect(wh.calls[0]!.path).toBe('/convert?timeout=30s');
    expect(review['apiVersion']).toBe('apiextensions.k8s.io/v1');
    expect(review['kind']).toBe('ConversionReview');
    expect(review.request.desiredAPIVersion).toBe('hook.example.com/v2');
    expect(review.request.objects).toHaveLength(1);
    expect(review.request.objects[0]).toMatchObject({ apiVersion: 'hook.example.com/v1', spec: { size: 3 } });
    await call('POST', '/apis/hook.example.com/v2/namespaces/default/widgets', widget('hook.example.com', 'v2', 'x', { replicas: 5 }));
    wh.calls.length = 0;
    const list = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets');
    expect(list.body.items.map((i: Json) => [i['apiVersion'], i['spec']])).toEqual([['hook.example.com/v2', { replicas: 3 }], ['hook.example.com/v2', { replicas: 5 }]]);
    // One review for the list: x, written in v2, is stored in the storage version v1 too.
    expect(wh.calls).toHaveLength(1);
    expect((wh.calls[0]!.review as Review).request.objects.map((o) => (o['metadata'] as Json)['name'])).toEqual(['w', 'x']);
    const patched = await call('PATCH', '/apis/hook.example.com/v2/namespaces/default/widgets/w', { metadata: { annotations: { x: 'y' } } }, 'application/merge-patch+json');
    expect([patched.body.apiVersion, patched.body.spec]).toEqual(['hook.example.com/v2', { replicas: 3 }]);
  });

  it('a webhook that changes more than labels and annotations of the metadata is refused; labels it changes are kept', async () => {
    await call('POST', '/apis/hook.example.com/v1/namespaces/default/widgets', widget('hook.example.com', 'v1', 'm', { size: 1 }));
    wh.handler = (review) => {
      const out = convert(review) as { response: { convertedObjects: (Json & { metadata: Json })[] } };
      out.response.convertedObjects = out.response.convertedObjects.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'changed' }, generation: 99 } }));
      return out;
    };
    const got = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/m');
    expect(got.body.metadata.labels).toEqual({ a: 'changed' });
    expect(got.body.metadata.generation).toBe(1);
    wh.handler = (review) => {
      const out = convert(review) as { response: { convertedObjects: (Json & { metadata: Json })[] } };
      out.response.convertedObjects = out.response.convertedObjects.map((o) => ({ ...o, metadata: { ...o.metadata, name: 'renamed' } }));
      return out;
    };
    const bad = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/m');
    expect([bad.status, bad.body.message]).toEqual([500, 'conversion webhook for hook.example.com/v1, Kind=Widget returned invalid metadata in object at index 0: must have the same name: m != renamed']);
  });

  it('failures: a failed result, the webhook unreachable', async () => {
    await call('POST', '/apis/hook.example.com/v1/namespaces/default/widgets', widget('hook.example.com', 'v1', 'f', { size: 1 }));
    wh.handler = (review) => ({ apiVersion: review['apiVersion'], kind: 'ConversionReview', response: { uid: review.request['uid'], result: { status: 'Failure', message: 'cannot convert size' } } });
    const failed = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/f');
    expect([failed.status, failed.body.message]).toEqual([500, 'conversion webhook for hook.example.com/v1, Kind=Widget failed: cannot convert size']);
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.hook.example.com';
    const current = (await call('GET', crdPath)).body;
    current.spec.conversion = webhookConversion('https://127.0.0.1:1/convert');
    expect((await call('PUT', crdPath, current)).status).toBe(200);
    const down = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/f');
    expect([down.status, down.body.message]).toEqual([500, 'conversion webhook for hook.example.com/v1, Kind=Widget failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused']);
    // Reads in the written version need no conversion.
    expect((await call('GET', '/apis/hook.example.com/v1/namespaces/default/widgets/f')).status).toBe(200);
  });
});
