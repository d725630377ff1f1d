import type { KubeObject, UnstructuredObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { Status } from '../api/status.js';
import { joinKey } from '../cache/keys.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ApiConnection } from '../client/api-connection.js';
import type { KubeRequest, RequestOptions } from '../client/kube-request.js';
import { ObjectClient } from '../client/object-client.js';
import type { ObjectClientOptions } from '../client/object-client-options.js';
import { resourceIdOf, type WriteInput } from './own-writes.js';

/** Told of every successful write made through a {@link writeTrackingClient}. */
export type WriteListener = (write: Omit<WriteInput, 'cluster'>) => void;

/**
 * `client` whose object clients (`objects(type, namespace)`, and through them `edit`, `apply`,
 * `createOrUpdate` …) report each successful write to `onWrite`: create, replace, patch, apply
 * (also of `status` and `scale`), and delete. Not reported: dry runs, collection deletes, answers
 * that are not an object (a `Status` but for deletes: evictions, bindings), and requests sent
 * through `client.connection` directly.
 */
export function writeTrackingClient(client: KubeClient, onWrite: WriteListener): KubeClient {
  const objects = <T extends KubeObject = UnstructuredObject>(type: ResourceType<T>, namespace?: string, options?: ObjectClientOptions): ObjectClient<T> =>
    new ObjectClient<T>(reportingConnection(client.connection, type, onWrite), client.discovery, type, namespace, options);
  return new Proxy(client, {
    get(target, property) {
      if (property === 'objects') return objects;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `connection` whose successful writes are reported as writes of `type`. */
function reportingConnection(connection: ApiConnection, type: ResourceType, onWrite: WriteListener): ApiConnection {
  const request = async <T>(req: KubeRequest, signal?: AbortSignal, options?: RequestOptions): Promise<T> => {
    const answer = await connection.request<T>(req, signal, options);
    const method = req.method ?? 'GET';
    if (method !== 'GET' && req.query?.dryRun === undefined) {
      const write = writeOf(type, method, req.path, answer);
      if (write !== undefined) onWrite(write);
    }
    return answer;
  };
  return new Proxy(connection, {
    get(target, property) {
      if (property === 'request') return request;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function isObject(answer: unknown): answer is KubeObject {
  if (answer === null || typeof answer !== 'object') return false;
  const a = answer as { kind?: unknown; metadata?: { name?: unknown }; items?: unknown };
  return a.kind !== 'Status' && a.items === undefined && typeof a.metadata?.name === 'string';
}

/**
 * What a write did, from its answer: an object answer is a write at its resourceVersion — also for
 * a delete that only set `deletionTimestamp` (finalizers, graceful deletion); any other delete
 * removed the object (named by the answer, else by the request path).
 */
export function writeOf(type: ResourceType, method: string, path: string, answer: unknown): Omit<WriteInput, 'cluster'> | undefined {
  const resource = resourceIdOf(type);
  if (isObject(answer)) {
    const meta = answer.metadata ?? {};
    const key = joinKey(meta.namespace || undefined, meta.name as string);
    const uid = meta.uid ?? undefined;
    const rv = meta.resourceVersion ?? undefined;
    const removed = method === 'DELETE' && (meta.deletionTimestamp === undefined || meta.deletionTimestamp === null);
    // A subresource may answer with another kind (`scale`: a Scale at the object's version): not a copy of the object.
    const object = answer.kind === undefined || answer.kind === type.kind ? answer : undefined;
    return { resource, key, deleted: removed, object, rv, uid };
  }
  if (method !== 'DELETE') return undefined;
  const target = objectPathOf(path);
  if (target === undefined) return undefined;
  const status = (answer ?? {}) as Status;
  return { resource, key: joinKey(target.namespace, status.details?.name ?? target.name), deleted: true, object: undefined, rv: undefined, uid: status.details?.uid };
}

/** Namespace and name of an object path (`…/namespaces/ns/plural/name` or `…/plural/name`). */
function objectPathOf(path: string): { namespace: string | undefined; name: string } | undefined {
  const p = path.split('?')[0] ?? '';
  const namespaced = /\/namespaces\/([^/]+)\/[^/]+\/([^/]+)$/.exec(p);
  if (namespaced !== null) return { namespace: decodeURIComponent(namespaced[1] as string), name: decodeURIComponent(namespaced[2] as string) };
  const plain = /^\/(?:api\/[^/]+|apis\/[^/]+\/[^/]+)\/[^/]+\/([^/]+)$/.exec(p);
  return plain === null ? undefined : { namespace: undefined, name: decodeURIComponent(plain[1] as string) };
}
