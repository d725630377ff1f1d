/**
 * Tier 3: a real kube-apiserver (1.20; MutatingAdmissionWebhook and ValidatingAdmissionWebhook
 * are among its default admission plugins) calls the manager's webhooks over loopback HTTPS (a
 * `url` client config with the CA bundle): defaulting, validation (the denial seen by `kubectl`,
 * also on a server-side dry run), and conversion between the stored version (v1) and the other
 * served one (v2) of the custom-resource example's CRD; a warning printed by `kubectl`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../packages/testkit/src/index.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { manager } from '../../src/manager/manager.js';
import { crdConversion, webhookConfigurations, webhookServer } from '../../src/webhook/index.js';
import { databaseCrd } from '../../examples/custom-resource/database.js';
import { BACKUPS_ANNOTATION, convertDatabases, databaseWebhooks, TEAM_LABEL } from '../../examples/custom-resource/database-webhooks.js';
import { DATABASES_V1, DATABASES_V2, type DatabaseV1, type DatabaseV2 } from '../../examples/custom-resource/database.generated.js';
import { etcdUrl, hasCluster, sleep } from './helpers/cluster.js';

const run = promisify(execFile);
const CRDS: ResourceType = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const MUTATING: ResourceType = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', namespaced: false };
const VALIDATING: ResourceType = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', namespaced: false };

/** Retries `attempt` until it passes or `ms` elapsed (webhook configurations take effect within a second or so). */
async function eventually<T>(ms: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

describe.skipIf(!hasCluster)('webhooks served by the manager, called by a real kube-apiserver', () => {
  const ns = `webhook-e2e-${randomBytes(3).toString('hex')}`;
  const configName = `rxkube-e2e-${ns}`;
  let client: KubeClient;
  let stop: AbortController;
  let running: Promise<void>;

  beforeAll(async () => {
    const tls = await generateTlsMaterial();
    client = KubeClient.fromDefault();
    const server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: databaseWebhooks });
    const mgr = manager({ logLevel: 'warn', processMetrics: false });
    mgr.add(server);
    stop = new AbortController();
    running = mgr.start(stop.signal);
    const { port } = (await server.listening) as AddressInfo;
    const target = { url: `https://127.0.0.1:${port}` };
    const crd = { ...databaseCrd, spec: { ...databaseCrd.spec, conversion: crdConversion(convertDatabases, { target, caBundle: tls.ca }) } };
    await client.objects(CRDS).delete(databaseCrd.metadata?.name ?? '').catch(() => undefined);
    await eventually(30_000, () => client.objects(CRDS).create(crd as KubeObject));
    await eventually(30_000, async () => {
      const got = (await client.objects(CRDS).get(databaseCrd.metadata?.name ?? '')) as KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
      if (!got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) throw new Error('CRD not established');
    });
    await client.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const config of webhookConfigurations(mgr.webhooks(), { name: configName, target, caBundle: tls.ca })) {
      await client.objects(config.kind === 'MutatingWebhookConfiguration' ? MUTATING : VALIDATING).create(config as KubeObject);
    }
  }, 120_000);

  afterAll(async () => {
    await client?.objects(MUTATING).delete(configName).catch(() => undefined);
    await client?.objects(VALIDATING).delete(configName).catch(() => undefined);
    await client?.objects(NAMESPACES).delete(ns).catch(() => undefined);
    await client?.objects(CRDS).delete(databaseCrd.metadata?.name ?? '').catch(() => undefined);
    stop?.abort();
    await running;
    client?.close();
  }, 60_000);

  it('defaults: the stored object carries what the mutating webhook added', async () => {
    const dbs = client.objects<DatabaseV1>(DATABASES_V1, ns);
    const created = await eventually(30_000, async () => {
      const name = `d-${randomBytes(2).toString('hex')}`;
      const got = await dbs.create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name, namespace: ns }, spec: { team: 'payments' } });
      if (got.spec?.sizeGi === undefined) {
        await dbs.delete(name);
        throw new Error('webhook configuration not in effect yet');
      }
      return got;
    });
    expect(created.spec).toEqual({ team: 'payments', sizeGi: 10 });
    expect(created.metadata?.labels?.[TEAM_LABEL]).toBe('payments');
  });

  it('validates: kubectl shows the denial message, also on a server-side dry run', async () => {
    const manifest = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'huge', namespace: ns }, spec: { team: 'search', sizeGi: 500 } });
    for (const extra of [[], ['--dry-run=server']]) {
      const result = await eventually(30_000, async () => {
        const r = await kubectl(['create', '-f', '-', ...extra], manifest);
        if (r.code === 0) {
          if (extra.length === 0) await kubectl(['delete', 'database.example.com', 'huge', '-n', ns], '');
          throw new Error('not denied yet');
        }
        return r;
      });
      expect(result.stderr).toContain('admission webhook "vdatabase.example.com" denied the request: spec.sizeGi must be at most 100, got 500');
    }
    await expect(client.objects<DatabaseV1>(DATABASES_V1, ns).create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orphan', namespace: ns }, spec: {} })).rejects.toThrow(
      /spec\.team is required: every database belongs to a team/,
    );
  });

  it("warns: kubectl prints the validating webhook's warning and creates the object", async () => {
    const manifest = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'big', namespace: ns }, spec: { team: 'search', sizeGi: 60 } });
    const result = await kubectl(['create', '-f', '-'], manifest);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Warning: spec.sizeGi 60 is more than half the limit');
    expect(result.stdout).toContain('database.example.com/big created');
  });

  it('converts: written as v2, stored as v1, read back in either version unchanged', async () => {
    const v2 = client.objects<DatabaseV2>(DATABASES_V2, ns);
    const written = await v2.create({ apiVersion: 'example.com/v2', kind: 'Database', metadata: { name: 'converted', namespace: ns }, spec: { owner: { team: 'ledger' }, storage: { sizeGi: 20 }, backups: { enabled: true } } });
    expect(written.apiVersion).toBe('example.com/v2');
    expect(written.spec).toEqual({ owner: { team: 'ledger' }, storage: { sizeGi: 20 }, backups: { enabled: true } });
    const asV1 = await client.objects<DatabaseV1>(DATABASES_V1, ns).get('converted');
    expect(asV1.apiVersion).toBe('example.com/v1');
    expect(asV1.spec).toEqual({ team: 'ledger', sizeGi: 20 });
    expect(asV1.metadata?.annotations?.[BACKUPS_ANNOTATION]).toBe('true');
    // What etcd holds is the storage version, v1 (CRs are stored as JSON).
    const key = Buffer.from(`/registry/example.com/databases/${ns}/converted`).toString('base64');
    const range = (await (await fetch(`${etcdUrl()}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key }) })).json()) as { kvs?: { value: string }[] };
    const stored = JSON.parse(Buffer.from(range.kvs?.[0]?.value ?? '', 'base64').toString('utf8')) as DatabaseV1;
    expect(stored.apiVersion).toBe('example.com/v1');
    expect(stored.spec).toEqual({ team: 'ledger', sizeGi: 20 });
    const asV2 = await v2.get('converted');
    expect(asV2.spec).toEqual(written.spec);
    expect(asV2.metadata?.annotations?.[BACKUPS_ANNOTATION]).toBeUndefined();
    const listed = await run('kubectl', ['get', 'databases.v2.example.com', 'converted', '-n', ns, '-o', 'jsonpath={.spec.backups.enabled}']);
    expect(listed.stdout).toBe('true');
  });
});

async function kubectl(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', args, { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}
