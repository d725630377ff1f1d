/**
 * The custom-resource example's manifests: `deploy/manifests.yaml` is exactly what its manager
 * derives (`main.ts --print-manifests`): its RBAC, the webhook configurations and the CRD's
 * `conversion` stanza for the webhooks it serves; and the CRD it serves has the versions the
 * conversion webhook converts between.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { databaseCrd } from '../../examples/custom-resource/database.js';
import { convertDatabases, databaseWebhooks, defaultDatabase, validateDatabase } from '../../examples/custom-resource/database-webhooks.js';
import { manifestsYaml } from '../../examples/custom-resource/manifests.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const deployed = (): string => readFileSync(join(root, 'examples', 'custom-resource', 'deploy', 'manifests.yaml'), 'utf8');

type Doc = { kind?: string; metadata?: { name?: string }; rules?: { resources?: string[]; verbs?: string[] }[]; webhooks?: { name?: string; clientConfig?: { service?: { path?: string } } }[]; spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { service?: { path?: string } } } } } };

describe('custom-resource example manifests', () => {
  it('deploy/manifests.yaml is what the manager derives (regenerate it with main.ts --print-manifests)', async () => {
    expect(deployed()).toBe(await manifestsYaml());
  });

  it('lists the RBAC of what the manager runs and registers each webhook it serves at its path', async () => {
    const docs = loadAll(await manifestsYaml()) as Doc[];
    expect(docs.map((d) => d.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'CustomResourceDefinition']);
    const role = docs.find((d) => d.kind === 'Role');
    expect(role?.rules).toContainEqual({ apiGroups: ['example.com'], resources: ['databases/status'], verbs: ['patch'] });
    expect(role?.rules).toContainEqual({ apiGroups: ['example.com'], resources: ['databases'], verbs: ['get', 'list', 'watch', 'patch'] });
    const paths = (kind: string): (string | undefined)[] => docs.find((d) => d.kind === kind)?.webhooks?.map((w) => w.clientConfig?.service?.path) ?? [];
    expect(paths('MutatingWebhookConfiguration')).toEqual([defaultDatabase.path]);
    expect(paths('ValidatingWebhookConfiguration')).toEqual([validateDatabase.path]);
    const crd = docs.find((d) => d.kind === 'CustomResourceDefinition');
    expect(crd?.metadata?.name).toBe(databaseCrd.metadata?.name);
    expect(crd?.spec?.conversion?.strategy).toBe('Webhook');
    expect(crd?.spec?.conversion?.webhook?.clientConfig?.service?.path).toBe(convertDatabases.path);
    expect(databaseWebhooks.map((w) => w.path)).toEqual([defaultDatabase.path, validateDatabase.path, convertDatabases.path]);
  });

  it('main.ts --print-manifests prints deploy/manifests.yaml', async () => {
    const r = await run(process.execPath, ['--import', 'tsx', '--conditions=source', 'examples/custom-resource/main.ts', '--print-manifests'], { cwd: root, timeout: 60_000 });
    expect(r.stdout).toBe(deployed());
  }, 90_000);

  it('the CRD serves exactly the versions the conversion webhook knows', () => {
    expect(databaseCrd.spec.versions.map((v) => v.name).sort()).toEqual([...convertDatabases.versions].sort());
    expect(databaseCrd.spec.versions.filter((v) => v.storage).map((v) => v.name)).toEqual(['v1']);
  });
});
