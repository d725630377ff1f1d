/**
 * The custom-resource example's webhooks: `deploy/webhooks.yaml` is exactly what its manager
 * derives (regenerate with `webhook-manifests.ts`), and the CRD it serves has the versions the
 * conversion webhook converts between.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseCrd } from '../../examples/custom-resource/database.js';
import { convertDatabases, defaultDatabase, validateDatabase } from '../../examples/custom-resource/database-webhooks.js';
import { webhookYaml } from '../../examples/custom-resource/webhook-manifests.js';

const root = join(import.meta.dirname, '..', '..');

describe('custom-resource example webhooks', () => {
  it('deploy/webhooks.yaml is what the manager derives (regenerate it with webhook-manifests.ts)', () => {
    expect(readFileSync(join(root, 'examples', 'custom-resource', 'deploy', 'webhooks.yaml'), 'utf8')).toBe(webhookYaml());
  });

  it('the manifest registers each webhook at the path the server serves it at', () => {
    const yaml = webhookYaml();
    for (const w of [defaultDatabase, validateDatabase, convertDatabases]) expect(yaml).toContain(`path: ${w.path}\n`);
    expect(yaml).toContain('kind: MutatingWebhookConfiguration');
    expect(yaml).toContain('kind: ValidatingWebhookConfiguration');
    expect(yaml).toContain('strategy: Webhook');
  });

  it('the CRD serves exactly the versions the conversion webhook knows', () => {
    expect(databaseCrd.spec.versions.map((v) => v.name).sort()).toEqual([...convertDatabases.versions].sort());
    expect(databaseCrd.spec.versions.filter((v) => v.storage).map((v) => v.name)).toEqual(['v1']);
  });
});
