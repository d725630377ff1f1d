import { afterEach, describe, expect, it } from 'vitest';
import { Discovery, UnknownResourceError } from '../../src/client/discovery.js';
import { KubeConnection } from '../../src/client/kube-connection.js';
import { resourcePath } from '../../src/client/resource-path.js';
import { json, kubeConfigFor, startServer, type TestServer } from './fixtures.js';

const CORE = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    { name: 'pods', kind: 'Pod', namespaced: true },
    { name: 'pods/status', kind: 'Pod', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
  ],
};

let server: TestServer;
let conn: KubeConnection;
afterEach(async () => {
  conn.close();
  await server.close();
});

async function setup(widgets: () => unknown[]): Promise<Discovery> {
  server = await startServer((req, res) => {
    if (req.path === '/api/v1') json(res, 200, CORE);
    else if (req.path === '/apis/example.com/v1') json(res, 200, { kind: 'APIResourceList', groupVersion: 'example.com/v1', resources: widgets() });
    else json(res, 404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
  });
  conn = KubeConnection.fromKubeConfig(kubeConfigFor(server.url, { token: 't' }));
  return new Discovery(conn);
}

describe('Discovery', () => {
  it('resolves built-in kinds to plural and scope, ignoring subresources, and caches per group/version', async () => {
    const d = await setup(() => []);
    expect(await d.resolve({ apiVersion: 'v1', kind: 'Pod' })).toEqual({ apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
    expect(await d.resolve({ apiVersion: 'v1', kind: 'Namespace' })).toEqual({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });
    expect(server.requests.map((r) => r.path)).toEqual(['/api/v1']);
  });

  it('returns an explicit resource without asking the server', async () => {
    const d = await setup(() => []);
    const explicit = { apiVersion: 'example.com/v1', kind: 'Gadget', plural: 'gadgets', namespaced: false };
    expect(await d.resolve(explicit)).toBe(explicit);
    expect(server.requests).toHaveLength(0);
  });

  it('refetches once when a kind is missing from the cached document (a CRD installed since)', async () => {
    let installed = false;
    const d = await setup(() => (installed ? [{ name: 'widgets', kind: 'Widget', namespaced: true }] : []));
    await expect(d.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' })).rejects.toBeInstanceOf(UnknownResourceError);
    installed = true;
    expect(await d.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' })).toMatchObject({ plural: 'widgets', namespaced: true });
    await d.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' });
    expect(server.requests.map((r) => r.path)).toEqual(['/apis/example.com/v1', '/apis/example.com/v1', '/apis/example.com/v1']);
  });

  it('reports an unserved group/version as UnknownResourceError and does not cache the failure', async () => {
    const d = await setup(() => []);
    const first = await d.resolve({ apiVersion: 'nope.io/v1', kind: 'X' }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(UnknownResourceError);
    expect((first as Error).cause).toMatchObject({ statusCode: 404 });
    await expect(d.resolve({ apiVersion: 'nope.io/v1', kind: 'X' })).rejects.toBeInstanceOf(UnknownResourceError);
    expect(server.requests).toHaveLength(2);
  });
});

describe('resourcePath', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
  it('builds core, group, namespaced, cluster-scoped, named and subresource paths', () => {
    expect(resourcePath(pod)).toBe('/api/v1/pods');
    expect(resourcePath(pod, { namespace: 'kube-system', name: 'a', subresource: 'status' })).toBe('/api/v1/namespaces/kube-system/pods/a/status');
    expect(resourcePath(crd, { namespace: 'ignored', name: 'x.example.com' })).toBe('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.example.com');
    expect(resourcePath(pod, { namespace: 'a b', name: 'c/d' })).toBe('/api/v1/namespaces/a%20b/pods/c%2Fd');
    expect(() => resourcePath(pod, { name: '' })).toThrow(TypeError);
  });
});
