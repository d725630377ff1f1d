import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const podSpec = { containers: [{ name: 'c', image: 'busybox' }] };
const deploymentSpec = (replicas: number) => ({ replicas, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: podSpec } });

describe('embedded API server: CRUD over HTTP', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
  });
  afterAll(() => server.close());

  it('creates with server-set metadata and one increasing resourceVersion', async () => {
    const before = server.resourceVersion;
    const a = await call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud-a' }, data: { k: 'v' } });
    expect(a.status).toBe(201);
    expect(a.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(a.body.metadata.namespace).toBe('default');
    expect(Number(a.body.metadata.resourceVersion)).toBe(before + 1);
    const d = await call('POST', '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'crud-d' }, spec: deploymentSpec(1) });
    expect(d.status).toBe(201);
    expect(Number(d.body.metadata.resourceVersion)).toBe(before + 2);
    expect(d.body.metadata.generation).toBe(1);
    const got = await call('GET', `${cms}/crud-a`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(a.body);
  });

  it('generateName appends a random suffix', async () => {
    const a = await call('POST', cms, { metadata: { generateName: 'gen-' } });
    expect(a.status).toBe(201);
    expect(a.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(a.body.kind).toBe('ConfigMap');
  });

  it('answers 409 AlreadyExists, 404 NotFound and 409 Conflict as Status objects', async () => {
    await call('POST', cms, { metadata: { name: 'crud-b' } });
    const dup = await call('POST', cms, { metadata: { name: 'crud-b' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409, details: { name: 'crud-b', kind: 'configmaps' } });
    const missing = await call('GET', `${cms}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'configmaps "nope" not found' });
    const cur = (await call('GET', `${cms}/crud-b`)).body;
    const ok = await call('PUT', `${cms}/crud-b`, { ...cur, data: { a: '1' } });
    expect(ok.status).toBe(200);
    const stale = await call('PUT', `${cms}/crud-b`, { ...cur, data: { a: '2' } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect((await call('GET', `${cms}/crud-b`)).body.data).toEqual({ a: '1' });
  });

  it('422 Invalid for a missing name, 400 for a namespace mismatch, 404 for a missing namespace', async () => {
    const noName = await call('POST', cms, { metadata: {} });
    expect(noName.status).toBe(422);
    expect(noName.body).toMatchObject({ reason: 'Invalid', details: { kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', field: 'metadata.name' }] } });
    const mismatch = await call('POST', cms, { metadata: { name: 'x', namespace: 'other' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.reason).toBe('BadRequest');
    const noNs = await call('POST', '/api/v1/namespaces/ghost/configmaps', { metadata: { name: 'x' } });
    expect(noNs.status).toBe(404);
    expect(noNs.body.message).toBe('namespaces "ghost" not found');
  });

  it('bumps generation on spec changes only; /status changes status only', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const d = (await call('POST', path, { metadata: { name: 'gen-d' }, spec: deploymentSpec(1) })).body;
    const labelled = (await call('PUT', `${path}/gen-d`, { ...d, metadata: { ...d.metadata, labels: { a: 'b' } } })).body;
    expect(labelled.metadata.generation).toBe(1);
    const scaled = (await call('PUT', `${path}/gen-d`, { ...labelled, spec: { ...labelled.spec, replicas: 3 }, status: { replicas: 9 } })).body;
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.status).toEqual(d.status); // status ignored on the main resource
    const st = await call('PUT', `${path}/gen-d/status`, { ...scaled, spec: { ...scaled.spec, replicas: 100 }, status: { replicas: 3 } });
    expect(st.status).toBe(200);
    expect(st.body.status).toEqual({ replicas: 3 });
    expect(st.body.spec).toEqual(scaled.spec);
    expect(st.body.spec.replicas).toBe(3);
    expect(st.body.metadata.generation).toBe(2);
  });

  it('an update that changes nothing keeps the resourceVersion', async () => {
    const cur = (await call('POST', cms, { metadata: { name: 'noop' }, data: { a: 'b' } })).body;
    const again = await call('PUT', `${cms}/noop`, cur);
    expect(again.body.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });

  it('delete returns a Success Status; with finalizers only deletionTimestamp is set until the last one goes', async () => {
    await call('POST', cms, { metadata: { name: 'del-a' } });
    const del = await call('DELETE', `${cms}/del-a`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'del-a', kind: 'configmaps' } });
    expect((await call('GET', `${cms}/del-a`)).status).toBe(404);

    await call('POST', cms, { metadata: { name: 'del-f', finalizers: ['example.com/x'] } });
    const pending = await call('DELETE', `${cms}/del-f`);
    expect(pending.status).toBe(200);
    expect(pending.body.metadata.deletionTimestamp).toBeDefined();
    const still = (await call('GET', `${cms}/del-f`)).body;
    expect(still.metadata.finalizers).toEqual(['example.com/x']);
    const gone = await call('PATCH', `${cms}/del-f`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(gone.status).toBe(200);
    expect((await call('GET', `${cms}/del-f`)).status).toBe(404);
  });

  it('honours delete preconditions', async () => {
    const cur = (await call('POST', cms, { metadata: { name: 'pre' } })).body;
    const wrongUid = await call('DELETE', `${cms}/pre`, { preconditions: { uid: 'nope' } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.reason).toBe('Conflict');
    const wrongRv = await call('DELETE', `${cms}/pre`, { preconditions: { resourceVersion: '1' } });
    expect(wrongRv.status).toBe(409);
    const ok = await call('DELETE', `${cms}/pre`, { preconditions: { uid: cur.metadata.uid, resourceVersion: cur.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
  });

  it('pods: delete returns the object; cluster-scoped nodes; cluster-wide lists', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'crud-ns' } });
    await call('POST', '/api/v1/namespaces/crud-ns/pods', { metadata: { name: 'p' }, spec: { nodeName: 'n1', ...podSpec } });
    await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: podSpec });
    const all = await call('GET', '/api/v1/pods');
    expect(all.body.kind).toBe('PodList');
    expect(all.body.items.map((p: { metadata: { namespace: string } }) => p.metadata.namespace)).toEqual(['crud-ns', 'default']);
    const node = await call('POST', '/api/v1/nodes', { metadata: { name: 'n1' } });
    expect(node.status).toBe(201);
    expect(node.body.metadata.namespace).toBeUndefined();
    expect((await call('GET', '/api/v1/namespaces/default/nodes/n1')).status).toBe(404);
    const del = await call('DELETE', '/api/v1/namespaces/default/pods/p');
    expect(del.body.kind).toBe('Pod');
  });

  it('leases (coordination.k8s.io/v1) and programmatic access agree', async () => {
    const l = await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'lock' }, spec: { holderIdentity: 'a' } });
    expect(l.status).toBe(201);
    expect(server.get('coordination.k8s.io/v1', 'Lease', 'lock', 'default')).toEqual(l.body);
    const seeded = server.seed([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default' } }]);
    expect((await call('GET', '/api/v1/namespaces/default/secrets/s1')).body).toEqual(seeded[0]);
    expect(server.list('v1', 'Secret').map((s) => s.metadata?.name)).toEqual(['s1']);
  });

  it('deleting a namespace marks it Terminating (its content waits for a namespace controller)', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'c' } });
    expect((await call('DELETE', '/api/v1/namespaces/doomed')).status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/doomed/configmaps/c')).status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/doomed')).body.status.phase).toBe('Terminating');
  });

  it('counts requests by method, path and watch', async () => {
    server.requests.clear();
    await call('GET', `${cms}/crud-a`);
    await call('GET', `${cms}/crud-a`);
    expect(server.requests.count({ method: 'GET', path: `${cms}/crud-a` })).toBe(2);
    expect(server.requests.count({ watch: true })).toBe(0);
    expect(server.requests.count({ resourceId: '/configmaps' })).toBe(2);
  });

  it('dryRun=All validates and answers but stores nothing', async () => {
    const rv = server.resourceVersion;
    const created = await call('POST', `${cms}?dryRun=All`, { metadata: { name: 'dry' }, data: { a: 'b' } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.uid).toBeDefined();
    expect((await call('GET', `${cms}/dry`)).status).toBe(404);
    expect((await call('POST', `${cms}?dryRun=All`, { metadata: { name: 'crud-a' } })).status).toBe(409);
    expect((await call('PATCH', `${cms}/crud-a?dryRun=All`, { data: { z: 'z' } }, 'application/merge-patch+json')).body.data).toMatchObject({ z: 'z' });
    expect((await call('DELETE', `${cms}/crud-a?dryRun=All`)).status).toBe(200);
    expect((await call('GET', `${cms}/crud-a`)).body.data).not.toHaveProperty('z');
    expect(server.resourceVersion).toBe(rv);
    expect((await call('POST', `${cms}?dryRun=Some`, { metadata: { name: 'dry' } })).status).toBe(400);
  });

  it('status is not settable on create (only through /status); pods start Pending', async () => {
    const pod = await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'st' }, spec: podSpec, status: { phase: 'Running' } });
    expect(pod.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    const d = await call('POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'st' }, spec: deploymentSpec(1), status: { replicas: 5 } });
    expect(d.body.status).toEqual({}); // the initial status, not the one sent
    const cm = await call('POST', cms, { metadata: { name: 'st' }, status: { kept: true } });
    expect(cm.body.status).toBeUndefined(); // a ConfigMap has no status: dropped as an unknown field
  });

  it('a resourceVersion on create is refused as kube-apiserver does (500, no reason); seed() ignores it', async () => {
    const r = await call('POST', cms, { metadata: { name: 'with-rv', resourceVersion: '5' } });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ kind: 'Status', message: 'resourceVersion should not be set on objects to be created' });
    expect(r.body.reason).toBeUndefined();
    expect((await call('GET', `${cms}/with-rv`)).status).toBe(404);
    const [seeded] = server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'with-rv', namespace: 'default', resourceVersion: '5' } }]);
    expect(Number(seeded?.metadata?.resourceVersion)).toBe(server.resourceVersion);
  });
});
