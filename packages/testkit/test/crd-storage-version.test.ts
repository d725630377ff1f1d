/**
 * Custom resources kept in their CRD's storage version, as kube-apiserver keeps them in etcd: a
 * write through another served version is converted to the storage version (by the conversion
 * webhook) before it is stored, and a patch through another version applies to the object as
 * that version sees it, not to the stored fields.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '@rxkube/testkit';
import { conversionFailure, convertWidgets, startConversionSetup, webhookConversion, widgetCrd, type ConversionReview, type ConversionSetup } from './crd-conversion-fixture.js';
import type { FakeWebhook, Json } from './webhook-fixture.js';

const GROUP = 'stored.example.com';
const V1 = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const V2 = `/apis/${GROUP}/v2/namespaces/default/widgets`;

describe('embedded API server: custom resources in the storage version', () => {
  let server: ApiServer;
  let call: ConversionSetup['call'];
  let wh: FakeWebhook;
  let setup: ConversionSetup | undefined;

  beforeAll(async () => {
    setup = await startConversionSetup((hook) => [widgetCrd(GROUP, { statusSubresource: true, conversion: webhookConversion(`${hook.url}/convert`, hook.caBundle) })]);
    ({ server, call, wh } = setup);
  });
  afterAll(() => setup?.close());
  afterEach(() => setup?.reset());

  const stored = (name: string): Json | undefined => server.get(`${GROUP}/v1`, 'Widget', name, 'default') as Json | undefined;

  it('an object created and replaced through v2 is stored in v1, and reads back in v2 unchanged', async () => {
    const created = await call('POST', V2, { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'a' }, spec: { replicas: 3 } });
    expect([created.status, created.body.apiVersion, created.body.spec]).toEqual([201, `${GROUP}/v2`, { replicas: 3 }]);
    expect([stored('a')?.['apiVersion'], stored('a')?.['spec']]).toEqual([`${GROUP}/v1`, { size: 3 }]);
    const replaced = await call('PUT', `${V2}/a`, { ...created.body, spec: { replicas: 4 } });
    expect([replaced.status, replaced.body.apiVersion, replaced.body.spec]).toEqual([200, `${GROUP}/v2`, { replicas: 4 }]);
    expect(stored('a')?.['spec']).toEqual({ size: 4 });
    const got = await call('GET', `${V2}/a`);
    expect(got.body.spec).toEqual({ replicas: 4 });
  });

  it('a merge patch through v2 applies to the v2 object: the stored v1 field changes, no v2 field is stored', async () => {
    await call('POST', V1, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'b' }, spec: { size: 1 } });
    const patched = await call('PATCH', `${V2}/b`, { spec: { replicas: 7 } }, 'application/merge-patch+json');
    expect([patched.status, patched.body.apiVersion, patched.body.spec]).toEqual([200, `${GROUP}/v2`, { replicas: 7 }]);
    expect([stored('b')?.['apiVersion'], stored('b')?.['spec']]).toEqual([`${GROUP}/v1`, { size: 7 }]);
    expect((await call('GET', `${V1}/b`)).body.spec).toEqual({ size: 7 });
  });

  it('a JSON patch through v2 names v2 paths; the status subresource too', async () => {
    await call('POST', V1, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'c' }, spec: { size: 2 } });
    const patched = await call('PATCH', `${V2}/c`, [{ op: 'test', path: '/spec/replicas', value: 2 }, { op: 'replace', path: '/spec/replicas', value: 9 }], 'application/json-patch+json');
    expect([patched.status, patched.body.spec]).toEqual([200, { replicas: 9 }]);
    expect(stored('c')?.['spec']).toEqual({ size: 9 });
    const status = await call('PATCH', `${V2}/c/status`, { status: { ready: true } }, 'application/merge-patch+json');
    expect([status.status, status.body.status, status.body.spec]).toEqual([200, { ready: true }, { replicas: 9 }]);
    expect(stored('c')?.['status']).toEqual({ ready: true });
  });

  it("a patch naming a stale resourceVersion is a conflict; without one it applies to the newest object", async () => {
    const created = await call('POST', V1, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'd' }, spec: { size: 1 } });
    await call('PATCH', `${V1}/d`, { spec: { size: 2 } }, 'application/merge-patch+json');
    const stale = await call('PATCH', `${V2}/d`, { metadata: { resourceVersion: created.body.metadata.resourceVersion }, spec: { replicas: 5 } }, 'application/merge-patch+json');
    expect(stale.status).toBe(409);
    expect(stored('d')?.['spec']).toEqual({ size: 2 });
    // A write that gets in while the webhook converts the patched object: the patch is prepared again.
    let raced = false;
    wh.handler = async (review) => {
      if (!raced && (review as ConversionReview).request.desiredAPIVersion.endsWith('/v1')) {
        raced = true;
        await call('PATCH', `${V1}/d`, { metadata: { labels: { raced: 'yes' } } }, 'application/merge-patch+json');
      }
      return convertWidgets(review);
    };
    const patched = await call('PATCH', `${V2}/d`, { spec: { replicas: 6 } }, 'application/merge-patch+json');
    expect([patched.status, patched.body.spec, patched.body.metadata.labels]).toEqual([200, { replicas: 6 }, { raced: 'yes' }]);
    expect(stored('d')?.['spec']).toEqual({ size: 6 });
  });

  it('a conversion to the storage version that fails fails the write, storing nothing', async () => {
    wh.handler = (review) => conversionFailure(review, 'no v1 for this');
    const refused = await call('POST', V2, { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'e' }, spec: { replicas: 1 } });
    expect([refused.status, refused.body.message]).toEqual([500, `conversion webhook for ${GROUP}/v2, Kind=Widget failed: no v1 for this`]);
    expect(stored('e')).toBeUndefined();
  });
});
