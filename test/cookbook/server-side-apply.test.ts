/**
 * Cookbook, server-side apply (examples/cookbook/server-side-apply.ts), over HTTP against the
 * embedded API server (its field manager and managedFields): fields left out are removed, another
 * manager's fields stay, a field it holds with another value is a 409 naming the field, and
 * force takes it over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, resources } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { applySettings, conflictsOf, FIELD_MANAGER } from '../../examples/cookbook/server-side-apply.js';

describe('cookbook: server-side apply', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('owns what it sends, keeps others\' fields, reports conflicts, forces when told', async () => {
    const created = await applySettings(client, 'default', 'settings', { mode: 'fast', level: '1' });
    expect(created.data).toEqual({ mode: 'fast', level: '1' });
    expect(created.metadata?.managedFields?.map((f) => [f.manager, f.operation])).toEqual([[FIELD_MANAGER, 'Apply']]);

    // Someone else (kubectl apply --server-side) adds a key and takes `mode` with the same value: shared.
    const kubectl = client.objects(resources.configMaps, 'default', { fieldManager: 'kubectl' });
    await kubectl.apply({ metadata: { name: 'settings' }, data: { mode: 'fast', owner: 'ops' } });

    // Left out now: `level` is removed; `owner` is kubectl's and stays.
    const next = await applySettings(client, 'default', 'settings', { mode: 'fast' });
    expect(next.data).toEqual({ mode: 'fast', owner: 'ops' });

    // kubectl changes `mode`: it is now kubectl's alone, and our different value conflicts.
    await kubectl.apply({ metadata: { name: 'settings' }, data: { mode: 'safe', owner: 'ops' } }, { force: true });
    const refused = await applySettings(client, 'default', 'settings', { mode: 'fast' }).catch((e: unknown) => e);
    expect(conflictsOf(refused)).toEqual(['.data.mode: conflict with "kubectl"']);
    expect(conflictsOf(new Error('not an API error'))).toEqual([]);

    const forced = await applySettings(client, 'default', 'settings', { mode: 'fast' }, true);
    expect(forced.data).toEqual({ mode: 'fast', owner: 'ops' });
    expect(server.get('v1', 'ConfigMap', 'settings', 'default')?.['data']).toEqual({ mode: 'fast', owner: 'ops' });
  });
});
