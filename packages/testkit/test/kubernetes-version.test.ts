import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessCluster, startApiServer, type ApiServer } from '@rxkube/testkit';
import { main } from '../src/api-server/cli.js';

interface Discovered {
  readonly groups: readonly { readonly name: string; readonly versions: readonly { readonly version: string }[]; readonly preferredVersion: { readonly version: string } }[];
}

async function json(server: ApiServer, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const STREAMING_LIST = '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1';

describe('embedded API server: emulated Kubernetes version', () => {
  let v134: ApiServer;
  let v120: ApiServer;
  beforeAll(async () => {
    [v134, v120] = await Promise.all([startApiServer(), startApiServer({ kubernetesVersion: '1.20' })]);
  });
  afterAll(async () => {
    await Promise.all([v134.close(), v120.close()]);
  });

  it('reports the selected version at /version (1.34 by default)', async () => {
    expect((await json(v134, '/version')).body).toMatchObject({ major: '1', minor: '34', gitVersion: 'v1.34.0+rxkube' });
    expect((await json(v120, '/version')).body).toMatchObject({ major: '1', minor: '20', gitVersion: 'v1.20.2+rxkube' });
  });

  it('serves the group versions of the selected version', async () => {
    const groups = async (s: ApiServer) => {
      const d = (await json(s, '/apis')).body as unknown as Discovered;
      return Object.fromEntries(d.groups.map((g) => [g.name, g.versions.map((v) => v.version)]));
    };
    const g134 = await groups(v134);
    const g120 = await groups(v120);
    expect(g120['batch']).toEqual(['v1', 'v1beta1']);
    expect(g120['policy']).toEqual(['v1beta1']);
    expect(g120['autoscaling']).toEqual(['v1', 'v2beta1', 'v2beta2']);
    expect(g120['extensions']).toEqual(['v1beta1']);
    expect(g120['resource.k8s.io']).toBeUndefined();
    expect(g134['batch']).toEqual(['v1']);
    expect(g134['policy']).toEqual(['v1']);
    expect(g134['autoscaling']).toEqual(['v2', 'v1']);
    expect(g134['discovery.k8s.io']).toEqual(['v1']);
    expect(g134['flowcontrol.apiserver.k8s.io']).toEqual(['v1']);
    expect(g134['extensions']).toBeUndefined();
    expect(g134['resource.k8s.io']).toEqual(['v1']);
    for (const versions of Object.values(g134)) for (const v of versions) expect(v).not.toMatch(/beta|alpha/);
    expect((await json(v134, '/apis/policy/v1beta1')).status).toBe(404);
    // ValidatingAdmissionPolicy (1.30) registers itself through the registry's version gate.
    const admissionV1 = async (s: ApiServer) => ((await json(s, '/apis/admissionregistration.k8s.io/v1')).body as { resources: { name: string }[] }).resources.map((r) => r.name);
    expect(await admissionV1(v134)).toContain('validatingadmissionpolicies');
    expect(await admissionV1(v120)).not.toContain('validatingadmissionpolicies');
    const policy = (await json(v134, '/apis/policy/v1')).body as { resources: { name: string }[] };
    expect(policy.resources.map((r) => r.name)).toEqual(['poddisruptionbudgets', 'poddisruptionbudgets/status']);
  });

  it('serves CRUD on a GA version added after 1.20 (batch/v1 CronJob) only where the version has it', async () => {
    const cronJob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '0 0 * * *', timeZone: 'Etc/UTC', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'busybox' }] } } } } } };
    const post = (s: ApiServer) => fetch(`${s.url}/apis/batch/v1/namespaces/default/cronjobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(cronJob) });
    const created = await post(v134);
    expect(created.status).toBe(201);
    // 1.20's CronJob defaulting applies (concurrencyPolicy); timeZone, new after 1.20, is kept as sent.
    expect(await created.json()).toMatchObject({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { timeZone: 'Etc/UTC', concurrencyPolicy: 'Allow' } });
    expect((await post(v120)).status).toBe(404);
  });

  it('derives the OpenAPI definitions of the selected version', async () => {
    const doc = async (s: ApiServer) => (await json(s, '/openapi/v2')).body as { info: { version: string }; definitions: Record<string, { 'x-kubernetes-group-version-kind'?: unknown }> };
    const d134 = await doc(v134);
    const d120 = await doc(v120);
    expect(d120.info.version).toBe('v1.20.2');
    expect(d134.info.version).toBe('v1.34.0');
    expect(d120.definitions['io.k8s.api.batch.v1.CronJob']).toBeUndefined();
    expect(d134.definitions['io.k8s.api.batch.v1.CronJob']?.['x-kubernetes-group-version-kind']).toEqual([{ group: 'batch', version: 'v1', kind: 'CronJob' }]);
    expect(d134.definitions['io.k8s.api.batch.v1.CronJobSpec']).toBeDefined();
    expect(d134.definitions['io.k8s.api.batch.v1beta1.CronJob']).toBeUndefined();
    expect(d134.definitions['io.k8s.api.policy.v1beta1.PodSecurityPolicy']).toBeUndefined();
    // Every reference of the derived document resolves.
    const refs = JSON.stringify(d134.definitions).match(/#\/definitions\/[^"]+/g) ?? [];
    expect(refs.filter((r) => d134.definitions[r.slice('#/definitions/'.length)] === undefined)).toEqual([]);
    const v3 = (await json(v134, '/openapi/v3/apis/batch/v1')).body as { components: { schemas: Record<string, unknown> } };
    expect(v3.components.schemas['io.k8s.api.batch.v1.CronJob']).toBeDefined();
  });

  it('serves a streaming list in 1.34', async () => {
    const res = await fetch(`${v134.url}${STREAMING_LIST}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"k8s.io/initial-events-end":"true"');
  });

  it('refuses resourceVersionMatch on a watch in 1.20, every failed rule listed as 1.20 lists them', async () => {
    const noRv = await json(v120, STREAMING_LIST);
    expect(noRv.status).toBe(422);
    expect(noRv.body['message']).toBe('ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided]');
    expect(noRv.body).toMatchObject({ reason: 'Invalid', details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden for watch' }, { reason: 'FieldValueForbidden' }] } });
    const withRv = await json(v120, `${STREAMING_LIST}&resourceVersion=1`);
    expect(withRv.body['message']).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch');
    const bogus = await json(v120, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersionMatch=Bogus&resourceVersion=1');
    expect(bogus.body['message']).toBe('ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch, resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""]');
  });

  it('ignores sendInitialEvents without resourceVersionMatch in 1.20 (an unknown parameter there): a plain watch', async () => {
    const res = await fetch(`${v120.url}/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&timeoutSeconds=1`);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('initial-events-end');
  });

  it('refuses an unknown version', async () => {
    await expect(startApiServer({ kubernetesVersion: '1.99' as never })).rejects.toThrow(/kubernetesVersion 1\.99/);
    expect(await main(['--kubernetes-version', '1.99'])).toBe(2);
  });
});

describe('in-process cluster: emulated Kubernetes version', () => {
  async function syncConfigMaps(kubernetesVersion: '1.20' | '1.34'): Promise<{ watches: string[]; lists: number; size: number }> {
    const cluster = inProcessCluster({ kubernetesVersion });
    cluster.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } }]);
    const factory = cluster.informers();
    const cms = factory.configMaps();
    factory.start();
    expect(await factory.waitForCacheSync(10_000)).toBe(true);
    const out = {
      watches: cluster.requests.filter({ resourceId: '/configmaps', watch: true }).map((r) => r.search),
      lists: cluster.requests.count({ resourceId: '/configmaps', watch: false, method: 'GET' }),
      size: cms.store.size,
    };
    factory.stop();
    cluster.close();
    return out;
  }

  it('serves the informer a streaming list in 1.34; in 1.20 refuses it and the informer lists', async () => {
    const current = await syncConfigMaps('1.34');
    expect(current).toMatchObject({ lists: 0, size: 1 });
    expect(current.watches[0]).toMatch(/sendInitialEvents=true/);
    const old = await syncConfigMaps('1.20');
    expect(old).toMatchObject({ lists: 1, size: 1 });
    expect(old.watches[0]).toMatch(/sendInitialEvents=true/);
  });
});
