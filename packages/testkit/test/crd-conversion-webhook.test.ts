/**
 * CRD conversion in the embedded API server: `strategy: None` sets the apiVersion; `strategy:
 * Webhook` calls a ConversionReview endpoint (a plain node:https server) for reads, lists and
 * write answers in another version than the object was written in; failures answered as
 * kube-apiserver 1.20 does.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '@rxkube/testkit';
import { conversionFailure, convertWidgets, startConversionSetup, webhookConversion, widgetCrd, type ConversionReview, type ConversionSetup } from './crd-conversion-fixture.js';
import { openWatch } from './helpers.js';
import type { FakeWebhook, Json } from './webhook-fixture.js';

describe('embedded API server: CRD conversion', () => {
  let server: ApiServer;
  let call: ConversionSetup['call'];
  let wh: FakeWebhook;
  let setup: ConversionSetup | undefined;

  beforeAll(async () => {
    setup = await startConversionSetup((hook) => [widgetCrd('none.example.com'), widgetCrd('hook.example.com', { conversion: webhookConversion(`${hook.url}/convert`, hook.caBundle) })]);
    ({ server, call, wh } = setup);
  });
  afterAll(() => setup?.close());
  afterEach(() => setup?.reset());

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
    const review = wh.calls[0]!.review as ConversionReview;
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
    expect((wh.calls[0]!.review as ConversionReview).request.objects.map((o) => (o['metadata'] as Json)['name'])).toEqual(['w', 'x']);
    const patched = await call('PATCH', '/apis/hook.example.com/v2/namespaces/default/widgets/w', { metadata: { annotations: { x: 'y' } } }, 'application/merge-patch+json');
    expect([patched.body.apiVersion, patched.body.spec]).toEqual(['hook.example.com/v2', { replicas: 3 }]);
  });

  it('a webhook that changes more than labels and annotations of the metadata is refused; labels it changes are kept', async () => {
    await call('POST', '/apis/hook.example.com/v1/namespaces/default/widgets', widget('hook.example.com', 'v1', 'm', { size: 1 }));
    wh.handler = (review) => {
      const out = convertWidgets(review) as { response: { convertedObjects: (Json & { metadata: Json })[] } };
      out.response.convertedObjects = out.response.convertedObjects.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'changed' }, generation: 99 } }));
      return out;
    };
    const got = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/m');
    expect(got.body.metadata.labels).toEqual({ a: 'changed' });
    expect(got.body.metadata.generation).toBe(1);
    wh.handler = (review) => {
      const out = convertWidgets(review) as { response: { convertedObjects: (Json & { metadata: Json })[] } };
      out.response.convertedObjects = out.response.convertedObjects.map((o) => ({ ...o, metadata: { ...o.metadata, name: 'renamed' } }));
      return out;
    };
    const bad = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/m');
    expect([bad.status, bad.body.message]).toEqual([500, 'conversion webhook for hook.example.com/v1, Kind=Widget returned invalid metadata in object at index 0: must have the same name: m != renamed']);
  });

  it('failures: a failed result, the webhook unreachable', async () => {
    await call('POST', '/apis/hook.example.com/v1/namespaces/default/widgets', widget('hook.example.com', 'v1', 'f', { size: 1 }));
    wh.handler = (review) => conversionFailure(review, 'cannot convert size');
    const failed = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/f');
    expect([failed.status, failed.body.message]).toEqual([500, 'conversion webhook for hook.example.com/v1, Kind=Widget failed: cannot convert size']);
    const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.hook.example.com';
    const current = (await call('GET', crdPath)).body;
    current.spec.conversion = webhookConversion('https://127.0.0.1:1/convert', wh.caBundle);
    expect((await call('PUT', crdPath, current)).status).toBe(200);
    const down = await call('GET', '/apis/hook.example.com/v2/namespaces/default/widgets/f');
    expect([down.status, down.body.message]).toEqual([500, 'conversion webhook for hook.example.com/v1, Kind=Widget failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused']);
    // Reads in the written version need no conversion.
    expect((await call('GET', '/apis/hook.example.com/v1/namespaces/default/widgets/f')).status).toBe(200);
  });
});
