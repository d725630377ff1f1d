import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

function crd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster', status = false) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [plural.slice(0, 2)] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, ...(status ? { subresources: { status: {} } } : {}) }],
    },
  };
}

describe('embedded API server: CustomResourceDefinitions', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
  });
  afterAll(() => server.close());

  it('a CRD serves its namespaced resource, with discovery', async () => {
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/widgets')).status).toBe(404);
    const c = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('widgets', 'Widget', 'Namespaced', true));
    expect(c.status).toBe(201);
    expect(c.body.status.conditions.map((x: { type: string }) => x.type)).toEqual(['NamesAccepted', 'Established']);
    const groups = (await call('GET', '/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toContain('example.com');
    const rl = (await call('GET', '/apis/example.com/v1')).body;
    expect(rl.resources.map((r: { name: string }) => r.name)).toEqual(['widgets', 'widgets/status']);
    const w = await call('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } });
    expect(w.status).toBe(201);
    expect(w.body.metadata.generation).toBe(1);
    const list = await call('GET', '/apis/example.com/v1/widgets');
    expect(list.body).toMatchObject({ kind: 'WidgetList', apiVersion: 'example.com/v1', items: [{ metadata: { name: 'w1' } }] });
    const smp = await call('PATCH', '/apis/example.com/v1/namespaces/default/widgets/w1', '{}', 'application/strategic-merge-patch+json');
    expect(smp.status).toBe(415);
    // kube-apiserver 1.20's custom resource handler: the accepted patch types, strategic merge patch not among them
    expect(smp.body.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('cluster-scoped custom resources and watch', async () => {
    await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('gadgets', 'Gadget', 'Cluster'));
    const w = await openWatch(server.url, '/apis/example.com/v1/gadgets?watch=1');
    const g = await call('POST', '/apis/example.com/v1/gadgets', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' } });
    expect(g.status).toBe(201);
    expect(g.body.metadata.namespace).toBeUndefined();
    expect((await w.next())[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Gadget' } });
    w.close();
  });

  it('an invalid CRD is 422; deleting a CRD stops serving its resource', async () => {
    const bad = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { ...crd('things', 'Thing', 'Namespaced'), metadata: { name: 'wrong' } });
    expect(bad.status).toBe(422);
    expect((await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com')).status).toBe(200);
    expect((await call('GET', '/apis/example.com/v1/gadgets')).status).toBe(404);
  });

  it('CRDs are Established at once and can be seeded programmatically', async () => {
    const [stored] = server.seed([crd('gizmos', 'Gizmo', 'Namespaced')]);
    const conditions = (stored?.['status'] as { conditions: { type: string; status: string }[] }).conditions;
    expect(conditions.map((c) => [c.type, c.status])).toEqual([['NamesAccepted', 'True'], ['Established', 'True']]);
    server.seed([{ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g', namespace: 'default' } }]);
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/gizmos/g')).status).toBe(200);
  });
});
