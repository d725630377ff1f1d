import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

describe('embedded API server: deletion lifecycle', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const pods = '/api/v1/namespaces/default/pods';
  const cms = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
  });
  afterAll(() => server.close());

  it('a pod bound to a node is deleted gracefully and stays until deleted with grace 0 (the kubelet)', async () => {
    await call('POST', pods, { metadata: { name: 'bound' }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'x' }] } });
    const w = await openWatch(server.url, `${pods}?watch=1&resourceVersion=${server.resourceVersion}&fieldSelector=metadata.name%3Dbound`);
    const del = await call('DELETE', `${pods}/bound`);
    expect(del.status).toBe(200);
    expect(del.body.kind).toBe('Pod');
    expect(del.body.metadata.deletionGracePeriodSeconds).toBe(20);
    const ts = Date.parse(del.body.metadata.deletionTimestamp as string);
    expect(ts).toBeGreaterThan(Date.now() + 15_000);
    expect((await call('GET', `${pods}/bound`)).status).toBe(200);
    // Status updates (the kubelet reporting) do not remove it.
    const cur = (await call('GET', `${pods}/bound`)).body;
    expect((await call('PUT', `${pods}/bound/status`, { ...cur, status: { phase: 'Running' } })).status).toBe(200);
    // A longer grace period changes nothing; a shorter one shortens it.
    expect((await call('DELETE', `${pods}/bound`, { gracePeriodSeconds: 60 })).body.metadata.deletionGracePeriodSeconds).toBe(20);
    expect((await call('DELETE', `${pods}/bound`, { gracePeriodSeconds: 5 })).body.metadata.deletionGracePeriodSeconds).toBe(5);
    await call('DELETE', `${pods}/bound?gracePeriodSeconds=0`);
    expect((await call('GET', `${pods}/bound`)).status).toBe(404);
    // Marked, status, shortened, then one DELETED (no MODIFIED for the longer grace period).
    const events = await w.next(4);
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    w.close();
  });

  it('a pod never scheduled goes at once; so does a finished one', async () => {
    await call('POST', pods, { metadata: { name: 'unbound' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    expect((await call('DELETE', `${pods}/unbound`)).status).toBe(200);
    expect((await call('GET', `${pods}/unbound`)).status).toBe(404);
    server.seed([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'done', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] }, status: { phase: 'Succeeded' } }]);
    await call('DELETE', `${pods}/done`);
    expect((await call('GET', `${pods}/done`)).status).toBe(404);
  });

  it('a deleted namespace is Terminating: creates inside get 403, it stays until finalized', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'c' } });
    const del = await call('DELETE', '/api/v1/namespaces/doomed');
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ kind: 'Namespace', spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' } });
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    // The content stays until a namespace controller deletes it.
    expect((await call('GET', '/api/v1/namespaces/doomed/configmaps/c')).status).toBe(200);
    const create = await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ reason: 'Forbidden', message: 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated', details: { causes: [{ reason: 'NamespaceTerminating' }] } });
    const again = await call('DELETE', '/api/v1/namespaces/doomed');
    expect(again.status).toBe(200); // as kube-apiserver 1.20: the namespace, unchanged
    expect(again.body.status.phase).toBe('Terminating');
    // What the namespace controller does: delete the content, then finalize.
    await call('DELETE', '/api/v1/namespaces/doomed/configmaps/c');
    const ns = (await call('GET', '/api/v1/namespaces/doomed')).body;
    const fin = await call('PUT', '/api/v1/namespaces/doomed/finalize', { ...ns, spec: { finalizers: [] } });
    expect(fin.status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/doomed')).status).toBe(404);
    expect((await call('DELETE', '/api/v1/namespaces/doomed')).status).toBe(404);
  });

  it('propagationPolicy Foreground and Orphan add the garbage collector finalizers; a bad policy is 422', async () => {
    await call('POST', cms, { metadata: { name: 'fg' } });
    const fg = await call('DELETE', `${cms}/fg`, { propagationPolicy: 'Foreground' });
    expect(fg.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(fg.body.metadata.deletionTimestamp).toBeDefined();
    await call('POST', cms, { metadata: { name: 'or' } });
    const or = await call('DELETE', `${cms}/or?propagationPolicy=Orphan`);
    expect(or.body.metadata.finalizers).toEqual(['orphan']);
    // The garbage collector removing its finalizer ends the deletion.
    await call('PATCH', `${cms}/or`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await call('GET', `${cms}/or`)).status).toBe(404);
    await call('POST', cms, { metadata: { name: 'bad' } });
    expect((await call('DELETE', `${cms}/bad`, { propagationPolicy: 'Sometimes' })).status).toBe(422);
    await call('POST', cms, { metadata: { name: 'bg' } });
    expect((await call('DELETE', `${cms}/bg`, { propagationPolicy: 'Background' })).body.kind).toBe('Status');
  });
});
