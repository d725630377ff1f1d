import type { KubeObject, UnstructuredObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import { Discovery } from './discovery.js';
import { HttpListWatcher, type ListWatchScope } from './http-list-watcher.js';
import type { KubeConfigLike } from './kube-config-like.js';
import { KubeConnection, type KubeConnectionOptions } from './kube-connection.js';
import { ObjectClient } from './object-client.js';
import type { ObjectClientOptions } from './object-client-options.js';

/**
 * Entry point of the client: one {@link KubeConnection} (auth, one keep-alive agent), one
 * {@link Discovery} cache, and factories for list/watch transports and object clients.
 *
 * ```ts
 * const client = KubeClient.fromDefault();
 * const pods = client.listWatcher(resources.pods, { namespace: 'default' });   // HttpListWatcher<K8s.Pod>
 * const leases = client.objects(resources.leases, 'kube-system');             // ObjectClient<K8s.Lease>
 * const widgets = client.objects<Widget>({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'default'); // discovery fills in the rest
 * ```
 */
export class KubeClient {
  readonly discovery: Discovery;

  constructor(readonly connection: KubeConnection) {
    this.discovery = new Discovery(connection);
  }

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

  /** Fills in a resource type's plural and scope (cached discovery). */
  resolve<T extends KubeObject>(type: ResourceType<T>, signal?: AbortSignal): Promise<ResolvedResourceType<T>> {
    return this.discovery.resolve(type, signal);
  }

  /** The list/watch transport for a resource in one namespace (or all) with selectors. */
  listWatcher<T extends KubeObject = UnstructuredObject>(type: ResourceType<T>, scope: ListWatchScope = {}): HttpListWatcher<T> {
    return new HttpListWatcher<T>(this.connection, this.discovery, type, scope);
  }

  /**
   * A typed object client for writes and reads of one resource in one namespace (or cluster-wide).
   * `T` comes from the resource type; a type without one (`{ apiVersion, kind }`) gives
   * {@link UnstructuredObject}s. `options.fieldManager` names the field manager of its writes
   * (required by `apply`).
   */
  objects<T extends KubeObject = UnstructuredObject>(type: ResourceType<T>, namespace?: string, options?: ObjectClientOptions): ObjectClient<T> {
    return new ObjectClient<T>(this.connection, this.discovery, type, namespace, options);
  }

  /** Closes the connection's sockets. */
  close(): void {
    this.connection.close();
  }
}
