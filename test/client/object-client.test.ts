import { afterEach, describe, expect, it } from 'vitest';
import { isConflict, isNotFound } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { json, kubeConfigFor, startServer, type RecordedRequest, type TestServer } from './fixtures.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const NODE = { apiVersion: 'v1', kind: 'Node', plural: 'nodes', namespaced: false };

let server: TestServer;
let client: KubeClient;
afterEach(async () => {
  client.close();
  await server.close();
});

/** A server that echoes requests back as the object, or answers with `answer(req)` when it returns something. */
async function setup(answer: (req: RecordedRequest) => { code: number; body: unknown } | undefined = () => undefined): Promise<void> {
  server = await startServer((req, res) => {
    const a = answer(req);
    if (a) return json(res, a.code, a.body);
    json(res, 200, { echo: { method: req.method, path: req.path, query: Object.fromEntries(req.query), type: req.headers['content-type'], body: req.body ? JSON.parse(req.body) : undefined } });
  });
  client = KubeClient.fromKubeConfig(kubeConfigFor(server.url, { token: 't' }));
}

type Echo = { echo: { method: string; path: string; query: Record<string, string>; type?: string; body?: unknown } };
const echo = (x: unknown): Echo['echo'] => (x as Echo).echo;

describe('ObjectClient', () => {
  it('gets, creates and replaces at the right paths with the right methods', async () => {
    await setup();
    const cms = client.objects(CM, 'ns');
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '5' } };
    expect(echo(await cms.get('a'))).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps/a' });
    expect(echo(await cms.create(obj, { fieldManager: 'me', dryRun: true }))).toMatchObject({
      method: 'POST',
      path: '/api/v1/namespaces/ns/configmaps',
      query: { fieldManager: 'me', dryRun: 'All' },
      type: 'application/json',
      body: obj,
    });
    expect(echo(await cms.replace({ ...obj, metadata: { ...obj.metadata, namespace: 'other' } }))).toMatchObject({
      method: 'PUT',
      path: '/api/v1/namespaces/other/configmaps/a',
    });
    expect(echo(await cms.replaceStatus(obj))).toMatchObject({ method: 'PUT', path: '/api/v1/namespaces/ns/configmaps/a/status' });
  });

  it('patches with the content type of each patch flavour', async () => {
    await setup();
    const cms = client.objects(CM, 'ns');
    expect(echo(await cms.patch('a', { data: { k: 'v' } }))).toMatchObject({ method: 'PATCH', type: 'application/merge-patch+json', body: { data: { k: 'v' } } });
    expect(echo(await cms.patch('a', [{ op: 'add', path: '/data/k', value: 'v' }], 'json')).type).toBe('application/json-patch+json');
    expect(echo(await cms.patch('a', {}, 'strategic')).type).toBe('application/strategic-merge-patch+json');
    expect(echo(await cms.patch('a', {}, 'apply', { fieldManager: 'ctl', force: true }))).toMatchObject({
      type: 'application/apply-patch+yaml',
      query: { fieldManager: 'ctl', force: 'true' },
    });
    expect(echo(await cms.patchStatus('a', { status: {} }))).toMatchObject({ path: '/api/v1/namespaces/ns/configmaps/a/status', type: 'application/merge-patch+json' });
  });

  it('deletes with preconditions and propagation policy in DeleteOptions', async () => {
    await setup();
    const res = await client.objects(NODE).delete('n1', { propagationPolicy: 'Foreground', preconditions: { uid: 'u1', resourceVersion: '9' }, gracePeriodSeconds: 0 });
    expect(echo(res)).toMatchObject({
      method: 'DELETE',
      path: '/api/v1/nodes/n1',
      body: { kind: 'DeleteOptions', propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { uid: 'u1', resourceVersion: '9' } },
    });
  });

  it('surfaces 409 Conflict and 404 NotFound as ApiError', async () => {
    await setup((req) =>
      req.method === 'PUT'
        ? { code: 409, body: { kind: 'Status', status: 'Failure', code: 409, reason: 'Conflict', message: 'the object has been modified' } }
        : { code: 404, body: { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound', message: 'configmaps "a" not found' } },
    );
    const cms = client.objects(CM, 'ns');
    const conflict = await cms.replace({ metadata: { name: 'a', resourceVersion: '1' } }).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect(isNotFound(await cms.get('a').catch((e: unknown) => e))).toBe(true);
  });

  it('lists all pages, dropping resourceVersion after the first page', async () => {
    await setup((req) => {
      const cont = req.query.get('continue');
      const page = cont === null ? 0 : Number(cont);
      return {
        code: 200,
        body: { kind: 'ConfigMapList', metadata: { resourceVersion: '77', continue: page < 2 ? String(page + 1) : '' }, items: [{ metadata: { name: `cm${page}` } }] },
      };
    });
    const list = await client.objects(CM, 'ns').list({ limit: 1, resourceVersion: '0', labelSelector: 'a=b' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['cm0', 'cm1', 'cm2']);
    expect(list.metadata.resourceVersion).toBe('77');
    expect(server.requests.map((r) => Object.fromEntries(r.query))).toEqual([
      { labelSelector: 'a=b', limit: '1', resourceVersion: '0' },
      { labelSelector: 'a=b', limit: '1', continue: '1' },
      { labelSelector: 'a=b', limit: '1', continue: '2' },
    ]);
  });

  it('restarts as one unpaged list when a continue token expires', async () => {
    await setup((req) => {
      if (req.query.get('continue') === '1') return { code: 410, body: { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'expired' } };
      if (!req.query.has('limit')) return { code: 200, body: { metadata: { resourceVersion: '80' }, items: [{ metadata: { name: 'x' } }, { metadata: { name: 'y' } }] } };
      return { code: 200, body: { metadata: { resourceVersion: '77', continue: '1' }, items: [{ metadata: { name: 'x' } }] } };
    });
    const list = await client.objects(CM, 'ns').list({ limit: 1 });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['x', 'y']);
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a namespaced call without a namespace, before sending anything', async () => {
    await setup();
    await expect(client.objects(CM).get('a')).rejects.toThrow(/namespaced/);
    expect(server.requests).toHaveLength(0);
  });
});
