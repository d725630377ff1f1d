import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('embedded API server: /scale and SelfSubjectAccessReview', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  let dir: string;
  const deps = '/apis/apps/v1/namespaces/default/deployments';

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
    dir = await mkdtemp(join(tmpdir(), 'rxkube-scale-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('GET /scale answers an autoscaling/v1 Scale with the selector as a string', async () => {
    await call('POST', deps, deployment('web', 2));
    const s = await call('GET', `${deps}/web/scale`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=web' } });
  });

  it('PUT and PATCH /scale change spec.replicas (and the generation); a stale resourceVersion is 409', async () => {
    const s = (await call('GET', `${deps}/web/scale`)).body;
    const put = await call('PUT', `${deps}/web/scale`, { ...s, spec: { replicas: 4 } });
    expect(put.status).toBe(200);
    expect(put.body.spec.replicas).toBe(4);
    const d = (await call('GET', `${deps}/web`)).body;
    expect(d.spec.replicas).toBe(4);
    expect(d.metadata.generation).toBe(2);
    const stale = await call('PUT', `${deps}/web/scale`, { ...s, spec: { replicas: 5 } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    const patched = await call('PATCH', `${deps}/web/scale`, { spec: { replicas: 1 } }, 'application/merge-patch+json');
    expect(patched.body.spec.replicas).toBe(1);
    const negative = await call('PATCH', `${deps}/web/scale`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
    expect(negative.status).toBe(422);
  });

  it('ReplicaSets and StatefulSets have /scale; ConfigMaps do not; discovery lists it', async () => {
    await call('POST', '/apis/apps/v1/namespaces/default/statefulsets', { ...deployment('db', 3), kind: 'StatefulSet' });
    expect((await call('GET', '/apis/apps/v1/namespaces/default/statefulsets/db/scale')).body.spec.replicas).toBe(3);
    await call('POST', '/apis/apps/v1/namespaces/default/replicasets', { ...deployment('rs', 1), kind: 'ReplicaSet' });
    expect((await call('GET', '/apis/apps/v1/namespaces/default/replicasets/rs/scale')).body.spec.replicas).toBe(1);
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' } });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/c/scale')).status).toBe(404);
    const disco = (await call('GET', '/apis/apps/v1')).body as { resources: { name: string; kind: string; group?: string }[] };
    expect(disco.resources).toContainEqual(expect.objectContaining({ name: 'deployments/scale', kind: 'Scale', group: 'autoscaling', version: 'v1' }));
  });

  it('a CRD declaring subresources.scale gets /scale at its paths', async () => {
    await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'crons.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'crons', singular: 'cron', kind: 'Cron' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size', labelSelectorPath: '.status.sel' } } }],
      },
    });
    await call('POST', '/apis/example.com/v1/namespaces/default/crons', { apiVersion: 'example.com/v1', kind: 'Cron', metadata: { name: 'c1' }, spec: { size: 2 } });
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/crons/c1/scale')).body).toMatchObject({ spec: { replicas: 2 }, status: { replicas: 0 } });
    await call('PATCH', '/apis/example.com/v1/namespaces/default/crons/c1/scale', { spec: { replicas: 7 } }, 'application/merge-patch+json');
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/crons/c1')).body.spec.size).toBe(7);
  });

  it('SelfSubjectAccessReview answers allowed (no authorization configured); a bad spec is 422', async () => {
    const r = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });
    const bad = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: {} });
    expect(bad.status).toBe(422);
  });

  it.skipIf(!hasKubectl)('kubectl scale and kubectl auth can-i work', async () => {
    const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
    const out = await run('kubectl', ['scale', 'deployment/web', '--replicas=6'], { env });
    expect(out.stdout).toMatch(/scaled/);
    expect((await call('GET', `${deps}/web`)).body.spec.replicas).toBe(6);
    const can = await run('kubectl', ['auth', 'can-i', 'create', 'pods'], { env });
    expect(can.stdout.trim()).toBe('yes');
  });
});
