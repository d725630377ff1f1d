/**
 * Webhooks tested with `npm test` and no cluster: a manager serves the custom-resource example's
 * webhooks over HTTPS (a throw-away pair from `generateTlsMaterial`), and the embedded API server
 * calls them through the configurations `webhookConfigurations(...)` derives (a `url` client
 * config with the CA bundle) and the CRD's `conversion` stanza from `crdConversion(...)`:
 * defaulting, a denial seen by the client, and conversion between the CRD's versions.
 */
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTlsMaterial, startApiServer, type ApiServer } from '../../packages/testkit/src/index.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { manager } from '../../src/manager/manager.js';
import { crdConversion, webhookConfigurations, webhookServer, type WebhookServer } from '../../src/webhook/index.js';
import { databaseCrd } from '../../examples/custom-resource/database.js';
import { BACKUPS_ANNOTATION, convertDatabases, databaseWebhooks, DEFAULT_SIZE_GI, TEAM_LABEL } from '../../examples/custom-resource/database-webhooks.js';
import { DATABASES_V1, DATABASES_V2, type DatabaseV1, type DatabaseV2 } from '../../examples/custom-resource/database.generated.js';

const CRDS: ResourceType = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
const MUTATING: ResourceType = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', namespaced: false };
const VALIDATING: ResourceType = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', namespaced: false };

describe("the manager's webhooks, called by the embedded API server (no cluster)", () => {
  let api: ApiServer;
  let client: KubeClient;
  let server: WebhookServer;
  const registry = new Registry();
  let stop: AbortController;
  let running: Promise<void>;

  beforeAll(async () => {
    const tls = await generateTlsMaterial();
    api = await startApiServer();
    client = KubeClient.fromKubeConfig(api.kubeConfig);
    server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: databaseWebhooks });
    const mgr = manager({ client, logLevel: 'off', processMetrics: false, registry });
    mgr.add(server);
    stop = new AbortController();
    running = mgr.start(stop.signal);
    const { port } = (await server.listening) as AddressInfo;
    const target = { url: `https://127.0.0.1:${port}` };
    await client.objects(CRDS).create({ ...databaseCrd, spec: { ...databaseCrd.spec, conversion: crdConversion(convertDatabases, { target, caBundle: tls.ca }) } } as KubeObject);
    for (const config of webhookConfigurations(mgr.webhooks(), { name: 'rxkube-custom-resource', target, caBundle: tls.ca })) {
      await client.objects(config.kind === 'MutatingWebhookConfiguration' ? MUTATING : VALIDATING).create(config as KubeObject);
    }
  });

  afterAll(async () => {
    stop?.abort();
    await running;
    client?.close();
    await api?.close();
  });

  it('defaults: the stored object carries what the mutating webhook added', async () => {
    const created = await client.objects<DatabaseV1>(DATABASES_V1, 'default').create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orders' }, spec: { team: 'payments' } });
    expect(created.spec).toEqual({ team: 'payments', sizeGi: DEFAULT_SIZE_GI });
    expect(created.metadata?.labels?.[TEAM_LABEL]).toBe('payments');
    const stored = api.get('example.com/v1', 'Database', 'orders', 'default') as DatabaseV1 | undefined;
    expect(stored?.spec?.sizeGi).toBe(DEFAULT_SIZE_GI);
  });

  it('validates: the client sees the denial message, nothing is stored, also on update', async () => {
    const dbs = client.objects<DatabaseV1>(DATABASES_V1, 'default');
    await expect(dbs.create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'huge' }, spec: { team: 'search', sizeGi: 500 } })).rejects.toThrow(
      'admission webhook "vdatabase.example.com" denied the request: spec.sizeGi must be at most 100, got 500',
    );
    expect(api.get('example.com/v1', 'Database', 'huge', 'default')).toBeUndefined();
    await expect(dbs.create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orphan' }, spec: {} })).rejects.toThrow(/spec\.team is required: every database belongs to a team/);
    const index = await dbs.create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'index' }, spec: { team: 'search' } });
    await expect(dbs.replace({ ...index, spec: { ...index.spec, team: 'payments' } })).rejects.toThrow(/spec\.team is immutable \(was search\)/);
  });

  it('converts: written as v2, read back as v1 and as v2 unchanged; a list in v2 converts the v1 objects', async () => {
    const v2 = client.objects<DatabaseV2>(DATABASES_V2, 'default');
    const written = await v2.create({ apiVersion: 'example.com/v2', kind: 'Database', metadata: { name: 'converted' }, spec: { owner: { team: 'ledger' }, storage: { sizeGi: 20 }, backups: { enabled: true } } });
    expect(written.apiVersion).toBe('example.com/v2');
    expect(written.spec).toEqual({ owner: { team: 'ledger' }, storage: { sizeGi: 20 }, backups: { enabled: true } });
    const asV1 = await client.objects<DatabaseV1>(DATABASES_V1, 'default').get('converted');
    expect(asV1.apiVersion).toBe('example.com/v1');
    expect(asV1.spec).toEqual({ team: 'ledger', sizeGi: 20 });
    expect(asV1.metadata?.annotations?.[BACKUPS_ANNOTATION]).toBe('true');
    const asV2 = await v2.get('converted');
    expect(asV2.spec).toEqual(written.spec);
    expect(asV2.metadata?.annotations?.[BACKUPS_ANNOTATION]).toBeUndefined();
    const listed = await v2.list();
    const orders = listed.items.find((d) => d.metadata?.name === 'orders');
    expect(orders?.apiVersion).toBe('example.com/v2');
    expect(orders?.spec).toEqual({ owner: { team: 'payments' }, storage: { sizeGi: DEFAULT_SIZE_GI } });
  });

  it("the API server's calls reached the manager's webhook server (its metrics count them)", async () => {
    const text = await registry.metrics();
    for (const w of databaseWebhooks) expect(text).toMatch(new RegExp(`controller_runtime_webhook_requests_total\\{webhook="${w.path}",code="200"\\} [1-9]`));
    expect(text).toMatch(/rxkube_webhook_denials_total\{webhook="\/validate-example-com-v1-database"\} [3-9]/);
    expect(server.webhooks).toBe(databaseWebhooks);
  });
});
