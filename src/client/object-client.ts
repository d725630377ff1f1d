import type { KubeList, KubeObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import type { Status } from '../api/status.js';
import { isExpired } from './api-error.js';
import type { Discovery } from './discovery.js';
import type { KubeConnection, KubeRequest, QueryParams } from './kube-connection.js';
import { resourcePath } from './resource-path.js';

/** Patch flavours and their content types. */
export const PATCH_CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** `merge` (RFC 7386), `json` (RFC 6902 operations), `strategic` (built-in types only), `apply` (server-side apply). */
export type PatchType = keyof typeof PATCH_CONTENT_TYPES;

/** Options every call accepts. */
export interface CallOptions {
  /** Aborts the request. */
  readonly signal?: AbortSignal;
}

/** Options of writes. */
export interface WriteOptions extends CallOptions {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
}

/** Options of `list`. */
export interface ObjectListOptions extends CallOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; default 500. Pages are fetched one after another and assembled. */
  readonly limit?: number;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact';
}

/** Options of `delete`. */
export interface DeleteOptions extends CallOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (else 409 Conflict). */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
}

/**
 * A small typed client for one resource type in one namespace (or cluster-wide), for the writes
 * controllers and leader election need. Promise-based: each call is one request and one answer,
 * and takes an optional `AbortSignal` (streams live in {@link HttpListWatcher}). Failures reject
 * with `ApiError` (e.g. 409 Conflict when `replace` sends a stale resourceVersion, 404 NotFound)
 * or `NetworkError`.
 */
export class ObjectClient<T extends KubeObject = KubeObject> {
  constructor(
    private readonly connection: KubeConnection,
    private readonly discovery: Discovery,
    private readonly resource: ResourceType<T>,
    /** Namespace for namespaced resources; objects carrying `metadata.namespace` use their own on create/replace. */
    readonly namespace?: string,
  ) {}

  /** GET one object. */
  get(name: string, options: CallOptions = {}): Promise<T> {
    return this.send({ name }, { method: 'GET' }, options.signal);
  }

  /** GET all objects, following `continue` tokens page by page; restarts as one unpaged list if a token expires. */
  async list(options: ObjectListOptions = {}): Promise<KubeList<T>> {
    const resource = await this.resolve(options.signal);
    const path = resourcePath(resource, { namespace: this.namespace });
    const base = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    const items: T[] = [];
    let token: string | undefined;
    for (;;) {
      const query: QueryParams =
        token === undefined
          ? { ...base, limit: options.limit ?? 500, resourceVersion: options.resourceVersion, resourceVersionMatch: options.resourceVersionMatch }
          : { ...base, limit: options.limit ?? 500, continue: token };
      let page: KubeList<T>;
      try {
        page = await this.connection.request<KubeList<T>>({ path, query }, options.signal);
      } catch (err) {
        if (token === undefined || !isExpired(err)) throw err;
        const query = { ...base, resourceVersion: options.resourceVersion, resourceVersionMatch: options.resourceVersionMatch };
        return this.connection.request<KubeList<T>>({ path, query }, options.signal);
      }
      items.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
      if (token === undefined) return { ...page, metadata: { ...page.metadata, continue: undefined }, items };
    }
  }

  /** POST a new object. */
  create(object: T, options: WriteOptions = {}): Promise<T> {
    return this.send({ namespace: namespaceOf(object) }, { method: 'POST', body: object, query: writeQuery(options) }, options.signal, false);
  }

  /** PUT the whole object; its `metadata.resourceVersion`, when set, must be current or the server answers 409 Conflict. */
  replace(object: T, options: WriteOptions = {}): Promise<T> {
    return this.send(
      { name: nameOf(object), namespace: namespaceOf(object) },
      { method: 'PUT', body: object, query: writeQuery(options) },
      options.signal,
    );
  }

  /** PUT the `status` subresource. */
  replaceStatus(object: T, options: WriteOptions = {}): Promise<T> {
    return this.send(
      { name: nameOf(object), namespace: namespaceOf(object), subresource: 'status' },
      { method: 'PUT', body: object, query: writeQuery(options) },
      options.signal,
    );
  }

  /** PATCH an object; `type` picks the content type (default `merge`). `apply` needs `fieldManager`. */
  patch(name: string, patch: unknown, type: PatchType = 'merge', options: WriteOptions & { force?: boolean } = {}): Promise<T> {
    return this.send(
      { name },
      { method: 'PATCH', body: patch, contentType: PATCH_CONTENT_TYPES[type], query: { ...writeQuery(options), force: options.force } },
      options.signal,
    );
  }

  /** PATCH the `status` subresource. */
  patchStatus(name: string, patch: unknown, type: PatchType = 'merge', options: WriteOptions = {}): Promise<T> {
    return this.send(
      { name, subresource: 'status' },
      { method: 'PATCH', body: patch, contentType: PATCH_CONTENT_TYPES[type], query: writeQuery(options) },
      options.signal,
    );
  }

  /**
   * DELETE an object. Resolves with the object when deletion is pending (finalizers, graceful
   * deletion) or with the server's success Status.
   */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(options.propagationPolicy !== undefined ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      ...(options.preconditions !== undefined ? { preconditions: options.preconditions } : {}),
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
    };
    return this.send({ name }, { method: 'DELETE', body }, options.signal);
  }

  private async resolve(signal?: AbortSignal): Promise<ResolvedResourceType<T>> {
    return this.discovery.resolve(this.resource, signal);
  }

  private async send<R>(
    target: { name?: string | undefined; namespace?: string | undefined; subresource?: string },
    request: Omit<KubeRequest, 'path'>,
    signal: AbortSignal | undefined,
    named = true,
  ): Promise<R> {
    const resource = await this.resolve(signal);
    const namespace = target.namespace ?? this.namespace;
    if (resource.namespaced && (namespace === undefined || namespace === '')) {
      throw new TypeError(`${resource.kind} is namespaced: give the client a namespace or set metadata.namespace`);
    }
    if (named && (target.name === undefined || target.name === '')) {
      throw new TypeError(`${resource.kind}: an object name is required`);
    }
    const path = resourcePath(resource, { namespace, name: named ? target.name : undefined, subresource: target.subresource });
    return this.connection.request<R>({ ...request, path }, signal);
  }
}

function nameOf(object: KubeObject): string | undefined {
  return object.metadata?.name;
}

function namespaceOf(object: KubeObject): string | undefined {
  return object.metadata?.namespace || undefined;
}

function writeQuery(options: WriteOptions): QueryParams {
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined };
}
