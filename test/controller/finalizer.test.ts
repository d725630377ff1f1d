import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { K8s } from '../../src/api/k8s.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ApiError } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { ObjectClient } from '../../src/client/object-client.js';
import { finalizer, FinalizerConflictError } from '../../src/controller/finalizer.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const CM = resources.configMaps;
const F = 'example.com/cleanup';

describe('finalizer (embedded API server)', () => {
  let server: ApiServer;
  let client: KubeClient;
  let cms: ObjectClient<K8s.ConfigMap>;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    cms = client.objects(CM, 'default');
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('adds the finalizer, then applies to the updated object', async () => {
    const created = await cms.create({ metadata: { name: 'a', finalizers: ['other/keep'] } });
    const applied: KubeObject[] = [];
    const r = await finalizer(created, { name: F, client: cms, apply: (o) => (applied.push(o), 'applied'), cleanup: () => 'cleaned' });
    expect(r).toBe('applied');
    expect(applied[0]?.metadata?.finalizers).toEqual(['other/keep', F]);
    expect(server.get('v1', 'ConfigMap', 'a', 'default')?.metadata?.finalizers).toEqual(['other/keep', F]);
    // already there: apply only, no write
    const rv = server.resourceVersion;
    expect(await finalizer(applied[0] as KubeObject, { name: F, client: cms, apply: () => 'again', cleanup: () => 'x' })).toBe('again');
    expect(server.resourceVersion).toBe(rv);
  });

  it('a stale copy gets 409 Conflict, is read again, and the finalizer lands once', async () => {
    const stale = await cms.create({ metadata: { name: 'b' } });
    await cms.patch('b', { data: { changed: 'meanwhile' } });
    const r = await finalizer(stale, { name: F, client: cms, apply: (o) => o.data, cleanup: () => undefined });
    expect(r).toEqual({ changed: 'meanwhile' });
    expect(server.get('v1', 'ConfigMap', 'b', 'default')?.metadata?.finalizers).toEqual([F]);
  });

  it('on deletion: cleanup, then the finalizer goes and the object with it', async () => {
    const created = await cms.create({ metadata: { name: 'c' } });
    const withF = (await finalizer(created, { name: F, client: cms, apply: (o) => o, cleanup: () => undefined })) as KubeObject;
    const deleting = (await cms.delete('c')) as KubeObject;
    expect(deleting.metadata?.deletionTimestamp).toBeDefined();
    const calls: string[] = [];
    const r = await finalizer(deleting, { name: F, client: cms, apply: () => calls.push('apply'), cleanup: () => (calls.push('cleanup'), 7) });
    expect(r).toBe(7);
    expect(calls).toEqual(['cleanup']);
    expect(server.get('v1', 'ConfigMap', 'c', 'default')).toBeUndefined();
    // a stale deleting copy afterwards: the object is gone (409 → 404 on read), cleanup runs, no error
    expect(withF.metadata?.finalizers).toEqual([F]);
  });

  it('a failing cleanup keeps the finalizer and propagates the error', async () => {
    await cms.create({ metadata: { name: 'd', finalizers: [F] } });
    const deleting = (await cms.delete('d')) as KubeObject;
    const boom = new Error('cloud API down');
    await expect(finalizer(deleting, { name: F, client: cms, apply: () => undefined, cleanup: () => Promise.reject(boom) })).rejects.toBe(boom);
    expect(server.get('v1', 'ConfigMap', 'd', 'default')?.metadata?.finalizers).toEqual([F]);
  });

  it('an object being deleted without our finalizer: nothing runs', async () => {
    await cms.create({ metadata: { name: 'e', finalizers: ['other/keep'] } });
    const deleting = (await cms.delete('e')) as KubeObject;
    const calls: string[] = [];
    expect(await finalizer(deleting, { name: F, client: cms, apply: () => calls.push('a'), cleanup: () => calls.push('c') })).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

describe('finalizer (conflicts forever)', () => {
  it('gives up with FinalizerConflictError after conflictRetries', async () => {
    let patches = 0;
    const conflict = new ApiError({ kind: 'Status', apiVersion: 'v1', code: 409, reason: 'Conflict', message: 'the object has been modified' });
    const fake = {
      patch: () => (patches++, Promise.reject(conflict)),
      get: () => Promise.resolve({ metadata: { name: 'x', resourceVersion: '2' } }),
    } as unknown as ObjectClient;
    await expect(
      finalizer({ metadata: { name: 'x', resourceVersion: '1' } }, { name: F, client: fake, apply: () => 1, cleanup: () => 2, conflictRetries: 2 }),
    ).rejects.toBeInstanceOf(FinalizerConflictError);
    expect(patches).toBe(3);
  });
});
