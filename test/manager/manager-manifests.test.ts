/** `managerManifests`: the manager's RBAC, then the registrations of the webhooks it serves. */
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { manager } from '../../src/manager/manager.js';
import { ManagerConfigError } from '../../src/manager/manager-errors.js';
import { managerManifests } from '../../src/manager/manager-manifests.js';
import { rbacManifest } from '../../src/manager/rbac.js';
import { webhookServer } from '../../src/webhook/index.js';
import { databaseWebhooks } from '../../examples/custom-resource/database-webhooks.js';

const tls = { certFile: '/nonexistent/tls.crt', keyFile: '/nonexistent/tls.key' };

describe('managerManifests', () => {
  it('is the RBAC manifest alone for a manager serving no webhooks', async () => {
    const mgr = manager({ logLevel: 'off', processMetrics: false });
    expect(await managerManifests(mgr, { name: 'op', namespace: 'ops' })).toBe(rbacManifest(await mgr.rbac(), { name: 'op', namespace: 'ops' }));
  });

  it('adds the webhook configurations and the CRD conversion stanza of what the manager serves', async () => {
    const mgr = manager({ logLevel: 'off', processMetrics: false });
    mgr.add(webhookServer({ webhooks: databaseWebhooks, tls }));
    const yaml = await managerManifests(mgr, { name: 'op', namespace: 'ops', labels: { app: 'op' }, webhooks: { target: { url: 'https://127.0.0.1:9443' }, caBundle: 'PEM' } });
    const docs = loadAll(yaml) as { kind: string; metadata: { name?: string; labels?: Record<string, string> }; webhooks?: { clientConfig: { url: string; caBundle: string } }[] }[];
    expect(docs.map((d) => d.kind)).toEqual(['ServiceAccount', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'CustomResourceDefinition']);
    const mutating = docs[1];
    expect(mutating?.metadata).toEqual({ name: 'op', labels: { app: 'op' } });
    expect(mutating?.webhooks?.[0]?.clientConfig).toEqual({ url: 'https://127.0.0.1:9443/mutate-example-com-v1-database', caBundle: Buffer.from('PEM').toString('base64') });
    expect(yaml).toContain('name: databases.example.com');
  });

  it('refuses to leave out the webhooks when it does not say how they are reached', async () => {
    const mgr = manager({ logLevel: 'off', processMetrics: false });
    mgr.add(webhookServer({ webhooks: databaseWebhooks, tls }));
    const err = await managerManifests(mgr, { name: 'op', namespace: 'ops' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagerConfigError);
    expect((err as Error).message).toBe('manager manifests for ops/op: the manager serves 3 webhook(s) (/mutate-example-com-v1-database, /validate-example-com-v1-database, /convert), but options.webhooks does not say how the API server reaches them');
  });
});
