import type { KubeObject, UnstructuredObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import { type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';
import type { Discovery } from '../client/discovery.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ApiConnection } from '../client/api-connection.js';
import type { KubeRequest, RequestOptions } from '../client/kube-request.js';
import { ObjectClient } from '../client/object-client.js';
import type { ObjectClientOptions } from '../client/object-client-options.js';
import { isLeadershipLost } from '../leader-election/leadership-lost-error.js';

/**
 * A write through a reconcile's context (`ctx.objects()`, `ctx.client`, `ctx.edit`) was tried after
 * the controller lost leadership, and refused before any request left the process. `cause` is the
 * `LeadershipLostError` the reconcile's signal aborted with.
 */
export class FencedWriteError extends RxkubeError {
  static override readonly code: string = 'CONTROLLER_FENCED_WRITE';
  static override readonly layer: ErrorLayer = 'controller';
  override readonly name = 'FencedWriteError';
  constructor(
    /** The HTTP method of the refused request. */
    readonly method: string,
    /** Its path on the API server. */
    readonly path: string,
    options?: ErrorOptions,
  ) {
    super(`${method} ${path} refused: leadership was lost, so writes through this reconcile's context are fenced`, options);
  }
}

/**
 * A view of `client` bound to a reconcile's `signal` (what `ctx.client` and `ctx.objects()` are):
 *
 * - every request made through it (its `objects()` clients, `resolve`, `connection.request`)
 *   carries `signal`, combined with the caller's own signal when one is given, so a reconcile that
 *   times out or is aborted frees its worker even when the server never answers;
 * - once `signal` aborted with a `LeadershipLostError` (fencing), every write (any method but GET)
 *   is refused with a {@link FencedWriteError} before anything is sent. Any other request after the
 *   abort fails with the signal's reason, also without being sent.
 *
 * Limit: a request already on the wire when leadership is lost is aborted (its socket destroyed),
 * but the server may have received it and may still apply it. `listWatcher` streams and `close`
 * are the client's own (reads, and the shared connection).
 */
export function fencedClient(client: KubeClient, signal: AbortSignal): KubeClient {
  const connection = fencedConnection(client.connection, signal);
  const discovery = boundDiscovery(client.discovery, signal);
  const objects = <T extends KubeObject = UnstructuredObject>(type: ResourceType<T>, namespace?: string, options?: ObjectClientOptions): ObjectClient<T> =>
    new ObjectClient<T>(connection, discovery, type, namespace, options);
  const resolve = <T extends KubeObject>(type: ResourceType<T>, callSignal?: AbortSignal): Promise<ResolvedResourceType<T>> =>
    discovery.resolve(type, callSignal);
  return overriding(client, { connection, discovery, objects, resolve });
}

/** `connection` whose `request` carries `signal` and refuses writes once leadership is lost. */
function fencedConnection(connection: ApiConnection, signal: AbortSignal): ApiConnection {
  const request = <T>(req: KubeRequest, callSignal?: AbortSignal, options?: RequestOptions): Promise<T> => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && signal.aborted && isLeadershipLost(signal.reason)) {
      return Promise.reject(new FencedWriteError(method, req.path, { cause: signal.reason }));
    }
    return connection.request<T>(req, both(signal, callSignal), options);
  };
  return overriding(connection, { request });
}

/** `discovery` whose lookups carry `signal`. */
function boundDiscovery(discovery: Discovery, signal: AbortSignal): Discovery {
  const resolve = <T extends KubeObject>(type: ResourceType<T>, callSignal?: AbortSignal): Promise<ResolvedResourceType<T>> =>
    discovery.resolve(type, both(signal, callSignal));
  return overriding(discovery, { resolve });
}

function both(signal: AbortSignal, other: AbortSignal | undefined): AbortSignal {
  return other === undefined || other === signal ? signal : AbortSignal.any([signal, other]);
}

/**
 * `target` with some members replaced; every other member is the target's own (methods bound to
 * it, so its internal state stays in one place).
 */
function overriding<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(t, property) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) return Reflect.get(overrides, property) as unknown;
      const value: unknown = Reflect.get(t, property, t);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}
