import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const APPLY = 'application/apply-patch+yaml';

describe('embedded API server: server-side apply with field ownership', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const deps = '/apis/apps/v1/namespaces/default/deployments';
  const cms = '/api/v1/namespaces/default/configmaps';
  const dep = (replicas: number | undefined, image: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
    spec: { ...(replicas === undefined ? {} : { replicas }), selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image, ...extra }] } } },
  });

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
  });
  afterAll(() => server.close());

  it('records managedFields per manager (Apply), in FieldsV1 with map-list keys', async () => {
    const r = await call('PATCH', `${deps}/web?fieldManager=alice`, dep(2, 'nginx:1'), APPLY);
    expect(r.status).toBe(201);
    const [entry] = r.body.metadata.managedFields;
    expect(entry).toMatchObject({ manager: 'alice', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(entry.fieldsV1['f:spec']['f:replicas']).toEqual({});
    expect(entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}']).toEqual({ '.': {}, 'f:name': {}, 'f:image': {} });
    expect(entry.fieldsV1['f:metadata']['f:labels']['f:app']).toEqual({});
  });

  it('another manager changing an owned field conflicts (409, kube-apiserver message) unless forced', async () => {
    const c = await call('PATCH', `${deps}/web?fieldManager=bob`, dep(5, 'nginx:1'), APPLY);
    expect(c.status).toBe(409);
    expect(c.body.reason).toBe('Conflict');
    expect(c.body.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    expect(c.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }]);
    const two = await call('PATCH', `${deps}/web?fieldManager=bob`, dep(5, 'nginx:2'), APPLY);
    expect(two.body.message).toBe('Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image');
    // Same values: shared ownership, no conflict.
    expect((await call('PATCH', `${deps}/web?fieldManager=bob`, dep(2, 'nginx:1'), APPLY)).status).toBe(200);
    const forced = await call('PATCH', `${deps}/web?fieldManager=bob&force=true`, dep(5, 'nginx:1'), APPLY);
    expect(forced.status).toBe(200);
    expect(forced.body.spec.replicas).toBe(5);
    const alice = forced.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'alice');
    expect(alice.fieldsV1['f:spec']['f:replicas']).toBeUndefined(); // moved to bob
  });

  it('a field a manager stops applying is removed, unless another manager owns it', async () => {
    await call('PATCH', `${cms}/cfg?fieldManager=alice`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1', b: '2', shared: 'x' } }, APPLY);
    await call('PATCH', `${cms}/cfg?fieldManager=bob`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { shared: 'x' } }, APPLY);
    const r = await call('PATCH', `${cms}/cfg?fieldManager=alice`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1' } }, APPLY);
    expect(r.body.data).toEqual({ a: '1', shared: 'x' });
  });

  it('map lists merge by key across managers; a dropped item goes', async () => {
    await call('PATCH', `${deps}/web?fieldManager=sidecar`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'log', image: 'busybox' }] } } } }, APPLY);
    const both = (await call('GET', `${deps}/web`)).body;
    expect(both.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['nginx', 'log']);
    const dropped = await call('PATCH', `${deps}/web?fieldManager=sidecar`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: {} }, APPLY);
    expect(dropped.body.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['nginx']);
  });

  it('non-apply writes are recorded as Update by their fieldManager (or User-Agent) and conflict with appliers', async () => {
    const p = await call('PATCH', `${cms}/cfg?fieldManager=editor`, { data: { a: 'changed' } }, 'application/merge-patch+json');
    const editor = p.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'editor');
    expect(editor).toMatchObject({ operation: 'Update', apiVersion: 'v1' });
    expect(editor.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    const c = await call('PATCH', `${cms}/cfg?fieldManager=alice`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1' } }, APPLY);
    expect(c.status).toBe(409);
    // kube-apiserver 1.20 names an Update manager by its apiVersion, without the entry's time.
    expect(c.body.message).toBe('Apply failed with 1 conflict: conflict with "editor" using v1: .data.a');
  });

  it('status writes record ownership of status fields, and status appliers conflict like any others', async () => {
    await call('PATCH', `${deps}/st?fieldManager=alice`, { ...dep(1, 'nginx:1'), metadata: { name: 'st' } }, APPLY);
    const applied = await call('PATCH', `${deps}/st/status?fieldManager=ctl`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'st' }, status: { replicas: 3, readyReplicas: 1 } }, APPLY);
    expect(applied.status).toBe(200);
    const ctl = applied.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'ctl');
    expect(ctl).toMatchObject({ operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:readyReplicas': {}, 'f:replicas': {} } } });
    const updated = await call('PATCH', `${deps}/st/status?fieldManager=upd`, { status: { availableReplicas: 1 } }, 'application/merge-patch+json');
    const upd = updated.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'upd');
    expect(upd).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:availableReplicas': {} } } });
    // alice's spec ownership is untouched by the status writes
    expect(updated.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'alice').fieldsV1['f:spec']).toBeDefined();
    const conflict = await call('PATCH', `${deps}/st/status?fieldManager=ctl2`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'st' }, status: { replicas: 4 } }, APPLY);
    expect(conflict.status).toBe(409);
    expect(conflict.body.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "ctl" with subresource "status"', field: '.status.replicas' }]);
  });

  it('keys ports by their defaulted protocol, owns label selectors whole, and sorts FieldsV1 keys as kube-apiserver', async () => {
    const r = await call('PATCH', `${deps}/ports?fieldManager=alice`, { ...dep(1, 'nginx:1', { ports: [{ containerPort: 80 }] }), metadata: { name: 'ports' } }, APPLY);
    const f = r.body.metadata.managedFields[0].fieldsV1;
    expect(f['f:spec']['f:selector']).toEqual({});
    const container = f['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}'];
    expect(Object.keys(container)).toEqual(['.', 'f:image', 'f:name', 'f:ports']);
    expect(container['f:ports']).toEqual({ 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } });
    // Re-applying with the protocol spelled out is the same item: no conflict, no second port.
    const again = await call('PATCH', `${deps}/ports?fieldManager=bob`, { ...dep(1, 'nginx:1', { ports: [{ containerPort: 80, protocol: 'TCP' }] }), metadata: { name: 'ports' } }, APPLY);
    expect(again.status).toBe(200);
    expect(again.body.spec.template.spec.containers[0].ports).toHaveLength(1);
  });

  it('accepts YAML bodies', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n';
    const r = await call('PATCH', `${cms}/from-yaml?fieldManager=y`, yaml, APPLY);
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ k: 'v' });
  });

  it('custom resources take list types from the CRD schema (x-kubernetes-list-type)', async () => {
    await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'boxes.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'boxes', singular: 'box', kind: 'Box' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {
          items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'string' } } } },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        } } } } } }],
      },
    });
    const path = '/apis/example.com/v1/namespaces/default/boxes/b';
    await call('PATCH', `${path}?fieldManager=m1`, { apiVersion: 'example.com/v1', kind: 'Box', metadata: { name: 'b' }, spec: { items: [{ id: 'x', v: '1' }], tags: ['a'] } }, APPLY);
    const r = await call('PATCH', `${path}?fieldManager=m2`, { apiVersion: 'example.com/v1', kind: 'Box', metadata: { name: 'b' }, spec: { items: [{ id: 'y', v: '2' }], tags: ['b'] } }, APPLY);
    expect(r.body.spec.items).toEqual([{ id: 'x', v: '1' }, { id: 'y', v: '2' }]);
    expect(r.body.spec.tags).toEqual(['a', 'b']);
  });

  it.skipIf(!hasKubectl)('kubectl apply --server-side: conflicts, --force-conflicts, pruned fields', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxkube-ssa-'));
    try {
      await server.writeKubeconfig(join(dir, 'kubeconfig'));
      const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
      const file = join(dir, 'cm.yaml');
      await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\ndata:\n  a: "1"\n  b: "2"\n');
      await run('kubectl', ['apply', '--server-side', '-f', file], { env });
      await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\ndata:\n  a: "1"\n');
      await run('kubectl', ['apply', '--server-side', '-f', file], { env });
      expect(server.get('v1', 'ConfigMap', 'kc', 'default')?.['data']).toEqual({ a: '1' });
      await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\ndata:\n  a: "2"\n');
      const conflict = await run('kubectl', ['apply', '--server-side', '--field-manager=other', '-f', file], { env }).catch((e: { stderr: string }) => e);
      expect(String((conflict as { stderr?: string }).stderr)).toMatch(/conflict with "kubectl"/);
      await run('kubectl', ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', file], { env });
      expect(server.get('v1', 'ConfigMap', 'kc', 'default')?.['data']).toEqual({ a: '2' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
