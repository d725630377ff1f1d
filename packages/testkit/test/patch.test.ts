import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch, strategicMergePatch } from '../src/api-server/patch.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

describe('patch algorithms', () => {
  it('merge patch: objects merge, null deletes, lists replace', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3] })).toEqual({ a: 1, b: { d: 3, e: 4 }, l: [3] });
  });

  it('JSON patch: add, remove, replace, move, copy, test', () => {
    const doc = { a: { b: [1, 2] }, c: 'x' };
    expect(jsonPatch(doc, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'add', path: '/a/b/0', value: 0 },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e~1f' },
      { op: 'remove', path: '/a/b/1' },
      { op: 'test', path: '/c', value: 'y' },
    ])).toEqual({ a: { b: [0, 2, 3] }, c: 'y', 'e/f': 'y' });
    expect(doc).toEqual({ a: { b: [1, 2] }, c: 'x' }); // input untouched
    expect(() => jsonPatch(doc, [{ op: 'remove', path: '/nope' }])).toThrow();
  });

  it('strategic merge patch: lists with a merge key merge by key; $patch directives', () => {
    const pod = { spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] }, metadata: { finalizers: ['f1'] } };
    expect(strategicMergePatch(pod, { spec: { containers: [{ name: 'a', image: 'a:2', env: [{ name: 'Y', value: '2' }] }] } })).toEqual({
      // kube's order: the patched container first (it was first already), a new env entry before the server-only ones
      spec: { containers: [{ name: 'a', image: 'a:2', env: [{ name: 'Y', value: '2' }, { name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] },
      metadata: { finalizers: ['f1'] },
    });
    expect(strategicMergePatch(pod, { spec: { containers: [{ name: 'b', $patch: 'delete' }] } })).toMatchObject({ spec: { containers: [{ name: 'a' }] } });
    expect(strategicMergePatch(pod, { spec: { $patch: 'replace', containers: [] } })).toMatchObject({ spec: { containers: [] } });
    expect(strategicMergePatch(pod, { metadata: { finalizers: ['f2'] } })).toMatchObject({ metadata: { finalizers: ['f2', 'f1'] } });
    expect(strategicMergePatch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['f1'] } })).toMatchObject({ metadata: { finalizers: [] } });
  });
});

describe('strategic merge patch: merge keys that depend on where the list is (the Go types\' patchMergeKey)', () => {
  it("a container's ports merge by containerPort", () => {
    const pod = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'http' }] }] } };
    expect(strategicMergePatch(pod, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 443, name: 'https' }] }] } })).toEqual({
      spec: { containers: [{ name: 'a', ports: [{ containerPort: 443, name: 'https' }, { containerPort: 80, name: 'http' }] }] },
    });
    const deployment = { spec: { template: { spec: { initContainers: [{ name: 'i', ports: [{ containerPort: 1 }] }] } } } };
    expect(strategicMergePatch(deployment, { spec: { template: { spec: { initContainers: [{ name: 'i', ports: [{ containerPort: 1, protocol: 'UDP' }] }] } } } })).toEqual({
      spec: { template: { spec: { initContainers: [{ name: 'i', ports: [{ containerPort: 1, protocol: 'UDP' }] }] } } },
    });
  });

  it("a Service's spec.ports merge by port", () => {
    const service = { spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } };
    expect(strategicMergePatch(service, { spec: { ports: [{ port: 443, name: 'https' }] } })).toEqual({
      spec: { ports: [{ port: 443, name: 'https' }, { name: 'http', port: 80, targetPort: 8080 }] },
    });
    expect(strategicMergePatch(service, { spec: { ports: [{ port: 80, targetPort: 9090 }] } })).toEqual({ spec: { ports: [{ name: 'http', port: 80, targetPort: 9090 }] } });
    expect(strategicMergePatch(service, { spec: { ports: [{ port: 80, $patch: 'delete' }] } })).toEqual({ spec: { ports: [] } });
  });

  it("a Node's status.addresses merge by type; the ports of other types are replaced", () => {
    const node = { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } };
    expect(strategicMergePatch(node, { status: { addresses: [{ type: 'Hostname', address: 'n1' }] } })).toEqual({
      status: { addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '10.0.0.1' }] },
    });
    // An EndpointSlice's ports (at its root) have no merge key: every item lacks `containerPort`,
    // so merging by it collapsed them into one.
    const slice = { addressType: 'IPv4', ports: [{ name: 'http', port: 80 }] };
    expect(strategicMergePatch(slice, { ports: [{ name: 'a', port: 81 }, { name: 'b', port: 82 }] })).toEqual({ addressType: 'IPv4', ports: [{ name: 'a', port: 81 }, { name: 'b', port: 82 }] });
  });
});

describe('strategic merge patch list order (kube-apiserver 1.20, apimachinery normalizeElementOrder)', () => {
  const env = (...names: string[]) => names.map((name) => ({ name, value: name.toLowerCase() }));
  const names = (o: unknown) => ((o as { env: { name: string }[] }).env).map((e) => e.name);

  it('a new entry goes before the server-only entries: [A] + [B] is [B, A]', () => {
    expect(names(strategicMergePatch({ env: env('A') }, { env: env('B') }))).toEqual(['B', 'A']);
    expect(names(strategicMergePatch({ env: env('A', 'C') }, { env: env('B') }))).toEqual(['B', 'A', 'C']);
  });

  it('entries already in place keep their places; new ones follow the patched ones', () => {
    expect(names(strategicMergePatch({ env: env('A', 'C') }, { env: env('C', 'D') }))).toEqual(['A', 'C', 'D']);
    expect(names(strategicMergePatch({ env: env('A', 'C') }, { env: env('E', 'A') }))).toEqual(['E', 'A', 'C']);
  });

  it('a deleted entry leaves the order of the rest; merged primitive lists order the same way', () => {
    expect(names(strategicMergePatch({ env: env('A', 'B', 'C') }, { env: [{ name: 'B', $patch: 'delete' }, { name: 'D', value: 'd' }] }))).toEqual(['D', 'A', 'C']);
    expect(strategicMergePatch({ metadata: { finalizers: ['x/b'] } }, { metadata: { finalizers: ['x/a'] } })).toEqual({ metadata: { finalizers: ['x/a', 'x/b'] } });
    expect(strategicMergePatch({ metadata: { finalizers: ['x/a', 'x/b'] } }, { metadata: { finalizers: ['x/b', 'x/c'] } })).toEqual({ metadata: { finalizers: ['x/a', 'x/b', 'x/c'] } });
  });
});

describe('PATCH over HTTP', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const pods = '/api/v1/namespaces/default/pods';

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
    await call('POST', pods, { metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'i:1' }, { name: 'side', image: 's:1' }] } });
  });
  afterAll(() => server.close());

  it('merge, JSON and strategic merge patches', async () => {
    const m = await call('PATCH', `${pods}/p`, { metadata: { labels: { b: '2' } } }, 'application/merge-patch+json');
    expect(m.body.metadata.labels).toEqual({ a: '1', b: '2' });
    const j = await call('PATCH', `${pods}/p`, [{ op: 'remove', path: '/metadata/labels/a' }], 'application/json-patch+json');
    expect(j.body.metadata.labels).toEqual({ b: '2' });
    // Containers merge by name: only `side` gets the new image (a pod may change only images).
    const s = await call('PATCH', `${pods}/p`, { spec: { containers: [{ name: 'side', image: 's:2' }] } }, 'application/strategic-merge-patch+json');
    expect(s.body.spec.containers.map((c: { name: string; image: string }) => `${c.name} ${c.image}`)).toEqual(['c i:1', 'side s:2']);
  });

  it('a resourceVersion in the patch is a precondition (409 when stale)', async () => {
    const stale = await call('PATCH', `${pods}/p`, { metadata: { resourceVersion: '1', labels: { c: '3' } } }, 'application/merge-patch+json');
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
  });

  it('PATCH on /status changes only status', async () => {
    const r = await call('PATCH', `${pods}/p/status`, { status: { phase: 'Running' }, metadata: { labels: { z: 'z' } } }, 'application/merge-patch+json');
    expect(r.status).toBe(200);
    expect(r.body.status).toEqual({ phase: 'Running', qosClass: 'BestEffort' });
    expect(r.body.metadata.labels).toEqual({ b: '2' });
    const main = await call('PATCH', `${pods}/p`, { status: { phase: 'Failed' } }, 'application/merge-patch+json');
    expect(main.body.status).toEqual({ phase: 'Running', qosClass: 'BestEffort' });
  });

  it('server-side apply: creates, then applies; fieldManager is required', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    const cfg = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: '1' } };
    const missing = await call('PATCH', `${cms}/ssa`, cfg, 'application/apply-patch+yaml');
    expect(missing.status).toBe(422);
    const created = await call('PATCH', `${cms}/ssa?fieldManager=test`, cfg, 'application/apply-patch+yaml');
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });
    const updated = await call('PATCH', `${cms}/ssa?fieldManager=test&force=true`, { ...cfg, data: { b: '2' } }, 'application/apply-patch+yaml');
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ b: '2' }); // the manager stopped applying data.a: it is removed
  });
});
