import { InvalidRequestError } from './invalid-request-error.js';

/**
 * What a reconcile step is asked to bring in line: one object, named by namespace and name.
 * Cluster-scoped objects have no namespace. Two requests are the same work item when their
 * {@link requestKey} is equal.
 */
export interface Request {
  readonly namespace?: string;
  readonly name: string;
  /**
   * The cluster the object lives in, for a controller over several clusters (`clusters` option);
   * absent for a single-cluster controller. Part of the queue key (`cluster::namespace/name`), so
   * equal names in two clusters are two items; such requests travel as objects, never as key strings.
   */
  readonly cluster?: string;
}

/** Separates the cluster from `namespace/name` in a request key. */
const CLUSTER_SEPARATOR = '::';

/**
 * An add with options, as in controller-runtime's priority queue (`AddWithOpts`): `after` delays
 * the item (ms), `rateLimited` asks the rate limiter for a delay (the smaller delay wins),
 * `priority` (default 0) orders ready items, higher first.
 */
export interface WorkQueueAdd {
  readonly request: Request | string;
  readonly after?: number;
  readonly rateLimited?: boolean;
  readonly priority?: number;
}

/** Anything the work queue accepts as input. */
export type WorkQueueInput = Request | string | WorkQueueAdd;

/**
 * The queue key of a request: `"namespace/name"`, or `"name"` when the request has no (or an
 * empty) namespace — the same shape as client-go's `MetaNamespaceKeyFunc`.
 * @throws InvalidRequestError when the name is missing or not a string.
 */
export function requestKey(request: Request): string {
  if (request === null || typeof request !== 'object') {
    throw new InvalidRequestError(`a request must be an object or a key string, got ${describe(request)}`);
  }
  const { namespace, name, cluster } = request;
  if (typeof name !== 'string' || name === '' || name.includes('/')) {
    throw new InvalidRequestError(`request name must be a non-empty string without '/', got ${describe(name)}`);
  }
  let prefix = '';
  if (cluster !== undefined && cluster !== '') {
    if (typeof cluster !== 'string' || cluster.includes('/') || cluster.includes(':')) {
      throw new InvalidRequestError(`request cluster must be a string without '/' or ':', got ${describe(cluster)}`);
    }
    prefix = cluster + CLUSTER_SEPARATOR;
  }
  if (namespace === undefined || namespace === '') return prefix + name;
  if (typeof namespace !== 'string' || namespace.includes('/')) {
    throw new InvalidRequestError(`request namespace must be a string without '/', got ${describe(namespace)}`);
  }
  return prefix + namespace + '/' + name;
}


/**
 * Checks that `key` is a valid queue key (`"namespace/name"` or `"name"`) without allocating.
 * @throws InvalidRequestError otherwise.
 */
export function checkRequestKey(key: string): void {
  if (typeof key !== 'string' || key === '') {
    throw new InvalidRequestError(`a request key must be a non-empty string, got ${describe(key)}`);
  }
  const slash = key.indexOf('/');
  if (slash === 0 || slash === key.length - 1 || (slash > 0 && key.indexOf('/', slash + 1) >= 0)) {
    throw new InvalidRequestError(`request key must be "namespace/name" or "name", got ${JSON.stringify(key)}`);
  }
}

/**
 * Parses a queue key (`"namespace/name"` or `"name"`) into a {@link Request}. A key string never
 * carries a cluster: multi-cluster requests travel as objects (the queue keeps them).
 * @throws InvalidRequestError for an empty key, an empty part, or more than one `/`.
 */
export function parseRequestKey(key: string): Request {
  checkRequestKey(key);
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  return typeof value;
}
