import { createRequire } from 'node:module';
import type * as ClientNode from '@kubernetes/client-node';

// Loaded on first use: client-node is the largest module graph a test file would import with the
// server (most tests never touch its KubeConfig), as rxkube's own client loads it lazily.
const load = createRequire(import.meta.url);
let clientNode: typeof ClientNode | undefined;

/** What a kubeconfig for the embedded server contains. */
export interface KubeconfigParams {
  readonly server: string;
  readonly token: string | undefined;
  /** PEM of the CA (TLS only). */
  readonly ca: string | undefined;
  readonly namespace?: string;
}

const NAME = 'rxkube-embedded';

/** The kubeconfig as YAML text (for kubectl or a file). */
export function kubeconfigYaml(p: KubeconfigParams): string {
  const caLine = p.ca !== undefined ? `    certificate-authority-data: ${Buffer.from(p.ca).toString('base64')}\n` : '';
  const user = p.token !== undefined ? `    token: ${p.token}\n` : '    {}\n';
  return (
    'apiVersion: v1\nkind: Config\n' +
    `clusters:\n- name: ${NAME}\n  cluster:\n    server: ${p.server}\n${caLine}` +
    `users:\n- name: ${NAME}\n  user:\n${user}` +
    `contexts:\n- name: ${NAME}\n  context:\n    cluster: ${NAME}\n    user: ${NAME}\n    namespace: ${p.namespace ?? 'default'}\n` +
    `current-context: ${NAME}\n`
  );
}

/** The same kubeconfig as an @kubernetes/client-node `KubeConfig`. */
export function kubeConfigObject(p: KubeconfigParams): ClientNode.KubeConfig {
  clientNode ??= load('@kubernetes/client-node') as typeof ClientNode;
  const kc = new clientNode.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: NAME, server: p.server, skipTLSVerify: false, ...(p.ca !== undefined ? { caData: Buffer.from(p.ca).toString('base64') } : {}) }],
    users: [{ name: NAME, ...(p.token !== undefined ? { token: p.token } : {}) }],
    contexts: [{ name: NAME, cluster: NAME, user: NAME, namespace: p.namespace ?? 'default' }],
    currentContext: NAME,
  });
  return kc;
}
