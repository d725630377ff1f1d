import type { KubeObject } from '../api/kube-object.js';
import type { Resource } from '../api/resource.js';
import { Discovery } from './discovery.js';
import { HttpListWatcher, type ListWatchScope } from './http-list-watcher.js';
import type { KubeConfigLike } from './kube-config-like.js';
import { KubeConnection, type KubeConnectionOptions } from './kube-connection.js';
import { ObjectClient, type ObjectClientOptions } from './object-client.js';
import type { ResourceRef } from './resource-path.js';

/**
 * Entry point of the client: one {@link KubeConnection} (auth, one keep-alive agent), one
 * {@link Discovery} cache, and factories for list/watch transports and object clients.
 *
 * ```ts
 * const client = KubeClient.fromDefault();
 * const pods = client.listWatcher({ apiVersion: 'v1', kind: 'Pod' }, { namespace: 'default' });
 * const leases = client.objects({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }, 'kube-system');
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

  /** Resolves `{ apiVersion, kind }` to plural and scope (cached discovery). */
  resolve(ref: ResourceRef, signal?: AbortSignal): Promise<Resource> {
    return this.discovery.resolve(ref, signal);
  }

  /** The list/watch transport for a resource in one namespace (or all) with selectors. */
  listWatcher<T extends KubeObject = KubeObject>(ref: ResourceRef, scope: ListWatchScope = {}): HttpListWatcher<T> {
    return new HttpListWatcher<T>(this.connection, this.discovery, ref, scope);
  }

  /**
   * A typed object client for writes and reads of one resource in one namespace (or cluster-wide);
   * `options.fieldManager` names the field manager of its writes (required by `apply`).
   */
  objects<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace?: string, options?: ObjectClientOptions): ObjectClient<T> {
    return new ObjectClient<T>(this.connection, this.discovery, ref, namespace, options);
  }

  /** Closes the connection's sockets. */
  close(): void {
    this.connection.close();
  }
}
