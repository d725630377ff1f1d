import type { KubeObject, UnstructuredObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import type { ApiConnection } from './api-connection.js';
import { Discovery } from './discovery.js';
import { HttpListWatcher, type ListWatchScope } from './http-list-watcher.js';
import { ObjectClient } from './object-client.js';
import type { ObjectClientOptions } from './object-client-options.js';

/**
 * Everything of `KubeClient` but its kubeconfig factories: one connection, one {@link Discovery}
 * cache, and factories for list/watch transports and object clients. It imports nothing of
 * Node.js, so it is what a browser's `fetchClient` builds; `KubeClient` adds `fromDefault`,
 * `fromFile`, `fromKubeConfig` and `inCluster`. Code that checks for a client tests
 * `instanceof KubeClientBase`.
 */
export class KubeClientBase {
  readonly discovery: Discovery;

  constructor(readonly connection: ApiConnection) {
    this.discovery = new Discovery(connection);
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

  /** Closes the connection (its sockets, or its requests in flight). */
  close(): void {
    this.connection.close();
  }
}
