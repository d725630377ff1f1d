/** The API surface of the emulated Kubernetes version: /version, discovery, /openapi/v2 and v3. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

describe('API surface of Kubernetes 1.20', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  beforeAll(async () => {
    server = await startApiServer({ kubernetesVersion: '1.20' });
    call = makeClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reports the emulated version', async () => {
    const v = (await call('GET', '/version')).body as { major: string; minor: string; gitVersion: string };
    expect([v.major, v.minor]).toEqual(['1', '20']);
    expect(v.gitVersion).toMatch(/^v1\.20\.2/);
  });

  it('discovers every group/version a default 1.20 kube-apiserver serves', async () => {
    const groups = ((await call('GET', '/apis')).body as { groups: { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[] }).groups;
    const gv = groups.flatMap((g) => g.versions.map((v) => `${g.name}/${v.version}`));
    for (const x of ['apps/v1', 'batch/v1', 'batch/v1beta1', 'rbac.authorization.k8s.io/v1', 'networking.k8s.io/v1', 'discovery.k8s.io/v1beta1', 'events.k8s.io/v1', 'storage.k8s.io/v1', 'policy/v1beta1', 'autoscaling/v2beta2', 'authorization.k8s.io/v1']) {
      expect(gv).toContain(x);
    }
    expect(gv.some((x) => x.includes('alpha'))).toBe(false);
    expect(groups.find((g) => g.name === 'networking.k8s.io')?.preferredVersion.version).toBe('v1');
    const apps = (await call('GET', '/apis/apps/v1')).body as { resources: { name: string; shortNames?: string[]; categories?: string[] }[] };
    expect(apps.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['deployments', 'statefulsets', 'daemonsets', 'controllerrevisions', 'statefulsets/status']));
    expect(apps.resources.find((r) => r.name === 'statefulsets')).toMatchObject({ shortNames: ['sts'], categories: ['all'] });
    const core = (await call('GET', '/api/v1')).body as { resources: { name: string; verbs: string[] }[] };
    expect(core.resources.find((r) => r.name === 'componentstatuses')?.verbs).toEqual(['get', 'list']);
  });

  it('serves objects of resources that were not hand-listed', async () => {
    const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { serviceName: 's', selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    expect((await call('POST', '/apis/apps/v1/namespaces/default/statefulsets', sts)).status).toBe(201);
    expect((await call('GET', '/apis/apps/v1/namespaces/default/statefulsets')).body.items).toHaveLength(1);
    expect((await call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).status).toBe(200);
    expect((await call('GET', '/apis/events.k8s.io/v1/events')).status).toBe(200);
  });

  it('serves /openapi/v2 and schemas in the /openapi/v3 documents', async () => {
    const v2 = (await call('GET', '/openapi/v2')).body as { swagger: string; definitions: Record<string, unknown> };
    expect(v2.swagger).toBe('2.0');
    expect(v2.definitions['io.k8s.api.core.v1.Pod']).toBeDefined();
    const pb = await call('GET', '/openapi/v2', undefined, 'application/json', { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect([pb.status, pb.headers['content-type']]).toEqual([200, 'application/octet-stream']);
    expect(pb.text).toContain('io.k8s.api.core.v1.Pod');
    const v3 = (await call('GET', '/openapi/v3/apis/apps/v1')).body as { components: { schemas: Record<string, { $ref?: string }> } };
    expect(Object.keys(v3.components.schemas)).toEqual(expect.arrayContaining(['io.k8s.api.apps.v1.Deployment', 'io.k8s.api.core.v1.PodSpec', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']));
    expect(JSON.stringify(v3.components.schemas)).not.toContain('#/definitions/');
  });
});
