/**
 * The example's manifests, derived from its manager as it runs (`databaseManager`, not started):
 * the ServiceAccount and roles of `mgr.rbac()`, and for the webhooks it serves (`mgr.webhooks()`)
 * the MutatingWebhookConfiguration, the ValidatingWebhookConfiguration and the CRD's `conversion`
 * stanza, pointing at the webhook Service, with cert-manager injecting the CA.
 * `deploy/manifests.yaml` is this output; a test fails when the two differ.
 *
 *   npx tsx --conditions=source examples/custom-resource/main.ts --print-manifests > examples/custom-resource/deploy/manifests.yaml
 */
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from 'rxkube';
import { managerManifests } from 'rxkube/manager';
import { databaseManager } from './database-manager.js';
import { Provisioner } from './provisioner.js';

export const NAME = 'rxkube-custom-resource';
export const NAMESPACE = 'rxkube-demo';
export const WEBHOOK_SERVICE = { name: 'rxkube-custom-resource-webhook', namespace: NAMESPACE, port: 443 } as const;
/** Where cert-manager mounts the serving certificate (controller-runtime's default directory). */
export const CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';

/** The manifests as YAML, with a header. */
export async function manifestsYaml(): Promise<string> {
  // Nothing is sent to a server: the client only has to exist for the manager to be built.
  const placeholder = new KubeConfig();
  placeholder.loadFromOptions({
    clusters: [{ name: 'placeholder', server: 'https://kubernetes.default.svc' }],
    users: [{ name: 'placeholder' }],
    contexts: [{ name: 'placeholder', cluster: 'placeholder', user: 'placeholder' }],
    currentContext: 'placeholder',
  });
  const client = KubeClient.fromKubeConfig(placeholder);
  try {
    // Built as it runs, but not started: the certificate is only read at start.
    const { mgr } = databaseManager({
      client,
      namespace: NAMESPACE,
      provisioner: new Provisioner(),
      quotaPerTeam: 2,
      webhookTls: { certFile: `${CERT_DIR}/tls.crt`, keyFile: `${CERT_DIR}/tls.key` },
      manager: { logLevel: 'off', processMetrics: false },
    });
    const manifest = await managerManifests(mgr, {
      name: NAME,
      namespace: NAMESPACE,
      labels: { 'app.kubernetes.io/name': NAME },
      webhooks: { target: { service: WEBHOOK_SERVICE }, injectCaFrom: `${WEBHOOK_SERVICE.namespace}/${WEBHOOK_SERVICE.name}` },
    });
    return `# Derived from what the custom-resource example's manager runs (main.ts --print-manifests).\n# Regenerate it; do not edit.\n${manifest}`;
  } finally {
    client.close();
  }
}
