import type { KubeList, KubeObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import type { Status } from '../api/status.js';
import { isExpired } from './api-error.js';
import type { Discovery } from './discovery.js';
import type { Recipe } from './draft-patch.js';
import type { KubeConnection, KubeRequest, QueryParams } from './kube-connection.js';
import { resourcePath } from './resource-path.js';
import { editObject, type EditOptions } from './update-with-recipe.js';

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
   * Edits an object by changing a draft of it: `recipe` runs on an immer draft (`Draft<T>`) of
   * `object` (typically a frozen object from a cache), and only what it changed is sent, as an
   * RFC 6902 JSON patch whose first operation tests `metadata.resourceVersion`. Resolves with the
   * server's updated object; sends nothing and resolves with `object` when the recipe changes
   * nothing. When `object` has no resourceVersion it is read from the server first.
   *
   * Optimistic concurrency: if the object changed since `object` was read (409 Conflict, or the
   * failed `test`, which kube-apiserver answers with 422 Invalid), it is read again (from
   * `options.store` when that cache has a copy not yet tried, else from the server) and the recipe
   * runs again on the new copy, at most `options.attempts` times (default 5, 10 ms apart), then
   * {@link EditConflictError}.
   *
   * **The recipe must be pure**: it may run several times, each on a newer copy, so it decides
   * only from the draft and from values that do not change between runs; no I/O, no counters,
   * no `await`. Its return value is ignored. A plain value it puts into the draft is not a draft:
   * mutating it afterwards mutates the caller's value, so put in fresh values or mutate before.
   *
   * The object is re-read by name: a recipe that must not touch a namesake created after a
   * deletion checks `draft.metadata.uid`. Changes to `status` are ignored by the server for
   * resources with a status subresource: use {@link editStatus}.
   *
   * @example
   * ```ts
   * const updated = await client.objects<ConfigMap>(CONFIG_MAPS, 'default').edit(cached, (draft) => {
   *   (draft.metadata.annotations ??= {})['example.com/seen'] = 'true';
   *   draft.data.items = draft.data.items.filter((x) => x !== 'old');
   * });
   * ```
   */
  edit(object: T, recipe: Recipe<T>, options: EditOptions<T> = {}): Promise<T> {
    return editObject(this.clientFor(object), object, recipe, options);
  }

  /**
   * {@link edit} through the `status` subresource: the recipe may change only `status` (a change
   * elsewhere throws a `TypeError` before anything is sent).
   */
  editStatus(object: T, recipe: Recipe<T>, options: EditOptions<T> = {}): Promise<T> {
    return editObject(this.clientFor(object), object, recipe, options, 'status');
  }

  /** This client, or one in the object's namespace when this one has none. */
  private clientFor(object: T): ObjectClient<T> {
    const ns = namespaceOf(object);
    if (ns === undefined || ns === this.namespace) return this;
    if (this.namespace !== undefined && this.namespace !== '') {
      throw new TypeError(`edit: the object is in namespace ${ns}, the client in ${this.namespace}`);
    }
    return new ObjectClient<T>(this.connection, this.discovery, this.resource, ns);
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
