/**
 * The example's RBAC manifest, derived from its manager (`--print-rbac`): the manager is built
 * exactly as it runs against a cluster, but not started, and `mgr.rbac()` lists what it needs.
 * `deploy/rbac.yaml` is this output; a test fails when the two differ, so the manifest cannot
 * drift from the code.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, rbacManifest, type ManagerOptions } from 'rxkube';
import { replicaSetManager } from './demo.js';

export interface RbacYamlOptions {
  /** The namespace the controller watches (and, by default, where its ServiceAccount lives). */
  readonly namespace: string;
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace?: string;
  readonly simulateKubelet?: boolean;
  readonly serviceAccount?: string;
  readonly serviceAccountNamespace?: string;
}

/** The manager options of the cluster mode that matter to RBAC (leader election). */
export function leaderElectionOptions(o: Pick<RbacYamlOptions, 'leaderElect' | 'leaderElectionNamespace' | 'namespace'>): Pick<ManagerOptions, 'leaderElection'> {
  return o.leaderElect ? { leaderElection: { id: 'rxkube-replicaset-controller', namespace: o.leaderElectionNamespace ?? o.namespace } } : {};
}

/** The ServiceAccount, Role(s) and binding(s) the example needs, as YAML with a header line. */
export async function rbacYaml(o: RbacYamlOptions): Promise<string> {
  // Nothing is sent to a server: the client only has to exist for the manager to offer recorders.
  const placeholder = new KubeConfig();
  placeholder.loadFromOptions({
    clusters: [{ name: 'placeholder', server: 'https://kubernetes.default.svc' }],
    users: [{ name: 'placeholder' }],
    contexts: [{ name: 'placeholder', cluster: 'placeholder', user: 'placeholder' }],
    currentContext: 'placeholder',
  });
  const client = KubeClient.fromKubeConfig(placeholder);
  try {
    const { mgr } = replicaSetManager({
      client,
      namespace: o.namespace,
      write: false,
      simulateKubelet: o.simulateKubelet ?? false,
      manager: { ...leaderElectionOptions(o), logLevel: 'off', processMetrics: false },
    });
    const manifest = rbacManifest(await mgr.rbac(), {
      name: o.serviceAccount ?? 'rxkube-replicaset-controller',
      namespace: o.serviceAccountNamespace ?? o.namespace,
      labels: { 'app.kubernetes.io/name': 'rxkube-replicaset-controller' },
    });
    const args = `--print-rbac${o.leaderElect ? ' --leader-elect' : ''}${o.simulateKubelet ? ' --simulate-kubelet' : ''} --namespace ${o.namespace}`;
    return `# Derived from what the example's manager runs (replicaset-controller ${args}).\n# Regenerate it; do not edit.\n${manifest}`;
  } finally {
    client.close();
  }
}
