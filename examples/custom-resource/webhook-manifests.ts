/**
 * The example's webhook manifests, derived from what its manager serves (`mgr.webhooks()`): the
 * MutatingWebhookConfiguration, the ValidatingWebhookConfiguration and the CRD's `conversion`
 * stanza, pointing at the webhook Service, with cert-manager injecting the CA.
 * `deploy/webhooks.yaml` is this output; a test fails when the two differ.
 *
 *   npx tsx --conditions=source examples/custom-resource/webhook-manifests.ts > examples/custom-resource/deploy/webhooks.yaml
 */
import { pathToFileURL } from 'node:url';
import { manager } from 'rxkube';
import { webhookManifest, webhookServer } from 'rxkube/webhook';
import { databaseWebhooks } from './database-webhooks.js';

export const WEBHOOK_SERVICE = { name: 'rxkube-custom-resource-webhook', namespace: 'rxkube-demo', port: 443 } as const;

/** The manifests as YAML, with a header line. */
export function webhookYaml(): string {
  // Built as it runs, but not started: the certificate is only read at start.
  const mgr = manager({ logLevel: 'off', processMetrics: false });
  mgr.add(webhookServer({ webhooks: databaseWebhooks, tls: { certFile: '/tmp/k8s-webhook-server/serving-certs/tls.crt', keyFile: '/tmp/k8s-webhook-server/serving-certs/tls.key' } }));
  const manifest = webhookManifest(mgr.webhooks(), {
    name: 'rxkube-custom-resource',
    target: { service: WEBHOOK_SERVICE },
    injectCaFrom: `${WEBHOOK_SERVICE.namespace}/${WEBHOOK_SERVICE.name}`,
    labels: { 'app.kubernetes.io/name': 'rxkube-custom-resource' },
  });
  return `# Derived from the webhooks the custom-resource example's manager serves (webhook-manifests.ts).\n# Regenerate it; do not edit.\n${manifest}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(webhookYaml());
}
