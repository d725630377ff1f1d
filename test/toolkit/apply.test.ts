/**
 * Server-side apply through ObjectClient.apply / applyStatus against the embedded API server
 * (its field manager): field ownership, removal of fields given up, conflicts and force, the
 * status subresource, and ownership taken by ordinary writes that name a field manager.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ApiError } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { useEmbeddedServer } from '../helpers/embedded-server.js';

interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}
interface Deployment extends KubeObject {
  readonly spec?: { readonly replicas?: number };
  readonly status?: { readonly conditions?: readonly { type: string; status: string; reason?: string }[]; readonly replicas?: number };
}

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };

let client: KubeClient;
useEmbeddedServer((_server, c) => {
  client = c;
});

describe('apply (embedded API server)', () => {
  it('creates, then owns exactly what it sends: fields left out are removed', async () => {
    const cms = client.objects<ConfigMap>(CM, 'default', { fieldManager: 'mirror' });
    const created = await cms.apply({ metadata: { name: 'a1', labels: { app: 'x' } }, data: { one: '1', two: '2' } });
    expect(created.data).toEqual({ one: '1', two: '2' });
    expect(created.metadata?.managedFields).toEqual([
      expect.objectContaining({ manager: 'mirror', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: expect.objectContaining({ 'f:data': expect.objectContaining({ 'f:one': {}, 'f:two': {} }) }) }),
    ]);
    const next = await cms.apply({ metadata: { name: 'a1' }, data: { two: '2' } });
    expect(next.data).toEqual({ two: '2' });
    expect(next.metadata?.labels).toBeUndefined();
    // Applying the same again is a no-op: same resourceVersion (also a second later: the
    // managed-fields timestamp stays).
    await new Promise((r) => setTimeout(r, 1_100));
    const again = await cms.apply({ metadata: { name: 'a1' }, data: { two: '2' } });
    expect(again.metadata?.resourceVersion).toBe(next.metadata?.resourceVersion);
  });

  it('a field another manager owns with another value is a 409 Conflict naming it; force takes it over', async () => {
    const theirs = client.objects<ConfigMap>(CM, 'default', { fieldManager: 'kubectl' });
    const mine = client.objects<ConfigMap>(CM, 'default', { fieldManager: 'controller' });
    await theirs.apply({ metadata: { name: 'a2' }, data: { shared: 'same', owned: 'theirs' } });
    // Same value: shared ownership, no conflict.
    await mine.apply({ metadata: { name: 'a2' }, data: { shared: 'same' } });
    const err = await mine.apply({ metadata: { name: 'a2' }, data: { shared: 'same', owned: 'mine' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 409, code: 'API_CONFLICT' });
    expect((err as ApiError).status.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.data.owned' }]);
    expect((err as ApiError).message).toContain('Apply failed with 1 conflict');
    const forced = await mine.apply({ metadata: { name: 'a2' }, data: { shared: 'same', owned: 'mine' } }, { force: true });
    expect(forced.data).toEqual({ shared: 'same', owned: 'mine' });
    // kubectl gave up 'owned' (forced away) and still shares 'shared': dropping 'shared' from its apply keeps it.
    const after = await theirs.apply({ metadata: { name: 'a2' }, data: {} });
    expect(after.data).toEqual({ shared: 'same', owned: 'mine' });
  });

  it('an update naming a field manager takes the fields it changes; apply then conflicts with it', async () => {
    const mine = client.objects<ConfigMap>(CM, 'default', { fieldManager: 'controller' });
    const applied = await mine.apply({ metadata: { name: 'a3' }, data: { mode: 'fast' } });
    await client.objects<ConfigMap>(CM, 'default').patch('a3', { data: { mode: 'slow' } }, 'merge', { fieldManager: 'human' });
    const err = await mine.apply({ metadata: { name: 'a3' }, data: { mode: 'fast' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 409 });
    expect(applied.data).toEqual({ mode: 'fast' });
  });

  it('applyStatus owns status fields only; apply to the main resource ignores status', async () => {
    const deployments = client.objects<Deployment>(DEPLOY, 'default', { fieldManager: 'rollout' });
    const spec = { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } };
    const created = await deployments.apply({ metadata: { name: 'd1' }, spec, status: { replicas: 9 } } as never);
    expect(created.status).toEqual({}); // the initial status: the applied one is ignored
    const withStatus = await deployments.applyStatus({ metadata: { name: 'd1' }, status: { replicas: 1, conditions: [{ type: 'Available', status: 'True' }] } });
    expect(withStatus.status).toEqual({ replicas: 1, conditions: [{ type: 'Available', status: 'True' }] });
    expect(withStatus.spec?.replicas).toBe(1);
    // Conditions merge by type. (kube-apiserver also removes status fields left out of a later
    // applyStatus, test/e2e/toolkit.test.ts; the embedded server does not track status ownership.)
    const next = await deployments.applyStatus({ metadata: { name: 'd1' }, status: { conditions: [{ type: 'Progressing', status: 'True' }] } });
    expect(next.status?.conditions).toContainEqual({ type: 'Progressing', status: 'True' });
    // The main resource's apply leaves status alone.
    const main = await deployments.apply({ metadata: { name: 'd1' }, spec });
    expect(main.status?.conditions).toContainEqual({ type: 'Progressing', status: 'True' });
    expect(main.metadata?.generation).toBe(1);
  });

  it('needs a field manager and a name; fills in apiVersion and kind', async () => {
    const cms = client.objects<ConfigMap>(CM, 'default');
    await expect(cms.apply({ metadata: { name: 'x' } })).rejects.toThrow(/field manager/);
    await expect(cms.withFieldManager('m').apply({ metadata: { name: '' } })).rejects.toThrow(/metadata.name/);
    const made = await cms.apply({ metadata: { name: 'a5', namespace: 'kube-system' }, data: { k: 'v' } }, { fieldManager: 'm' });
    expect(made).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'kube-system' } });
  });
});
