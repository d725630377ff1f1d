import type { KubeConfigLike } from './kube-config-like.js';
import { KubeClientBase } from './kube-client-base.js';
import { KubeConnection, type KubeConnectionOptions } from './kube-connection.js';

/**
 * Entry point of the client: one connection (a {@link KubeConnection}: auth, one keep-alive
 * agent), one `Discovery` cache, and factories for list/watch transports and object clients.
 *
 * ```ts
 * const client = KubeClient.fromDefault();
 * const pods = client.listWatcher(resources.pods, { namespace: 'default' });   // HttpListWatcher<K8s.Pod>
 * const leases = client.objects(resources.leases, 'kube-system');             // ObjectClient<K8s.Lease>
 * const widgets = client.objects<Widget>({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'default'); // discovery fills in the rest
 * ```
 *
 * In a browser (or any runtime with `fetch`), `fetchClient({ server, token })` from
 * `rxkube/browser` builds the same client over `fetch`.
 */
export class KubeClient extends KubeClientBase {
  /** From a client-node `KubeConfig`. */
  static fromKubeConfig(kubeConfig: KubeConfigLike, options?: KubeConnectionOptions): KubeClient {
    return new KubeClient(KubeConnection.fromKubeConfig(kubeConfig, options));
  }

  /** `KUBECONFIG`, `~/.kube/config` or in-cluster, as client-node's `loadFromDefault`. */
  static fromDefault(options?: KubeConnectionOptions): KubeClient {
    return new KubeClient(KubeConnection.fromDefault(options));
  }

  /** From a kubeconfig file. */
  static fromFile(file: string, options?: KubeConnectionOptions): KubeClient {
    return new KubeClient(KubeConnection.fromFile(file, options));
  }

  /** From the pod's service account. */
  static inCluster(options?: KubeConnectionOptions): KubeClient {
    return new KubeClient(KubeConnection.inCluster(options));
  }
}
