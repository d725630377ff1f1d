import type { KubeList, KubeObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import type { Status } from '../api/status.js';
import { isExpired, isNotFound } from './api-error.js';
import type { ApplyConfiguration } from './apply-configuration.js';
import { createOrPatch, createOrUpdate, type CreateOrUpdateResult, type MutateFn } from './create-or-update.js';
import type { Discovery } from './discovery.js';
import type { Recipe } from './draft-patch.js';
import type { ApiConnection } from './api-connection.js';
import type { KubeRequest, QueryParams, RequestOptions } from './kube-request.js';
import { resourcePath } from './resource-path.js';
import {
  PATCH_CONTENT_TYPES,
  type ApplyOptions,
  type CallOptions,
  type DeleteOptions,
  type ObjectClientOptions,
  type ObjectListOptions,
  type PatchOptions,
  type PatchType,
  type WriteOptions,
} from './object-client-options.js';
import { editObject, type EditOptions } from './update-with-recipe.js';

/**
 * A small typed client for one resource type in one namespace (or cluster-wide), for the writes
 * controllers and leader election need. Promise-based: each call is one request and one answer,
 * and takes an optional `AbortSignal` (streams live in {@link rxkube/client!HttpListWatcher}). Failures reject
 * with `ApiError` (e.g. 409 Conflict when `replace` sends a stale resourceVersion, 404 NotFound)
 * or `NetworkError`.
 */
export class ObjectClient<T extends KubeObject = KubeObject> {
  constructor(
    private readonly connection: ApiConnection,
    private readonly discovery: Discovery,
    private readonly resource: ResourceType<T>,
    /** Namespace for namespaced resources; objects carrying `metadata.namespace` use their own on create/replace. */
    readonly namespace?: string,
    private readonly options: ObjectClientOptions = {},
  ) {}

  /** The field manager of writes that name none, if any. */
  get fieldManager(): string | undefined {
    return this.options.fieldManager;
  }

  /** This client with another default field manager (see {@link ObjectClientOptions.fieldManager}). */
  withFieldManager(fieldManager: string): ObjectClient<T> {
    return new ObjectClient<T>(this.connection, this.discovery, this.resource, this.namespace, { ...this.options, fieldManager });
  }

  /** This client for another namespace (same resource and options). */
  inNamespace(namespace: string | undefined): ObjectClient<T> {
    return namespace === this.namespace ? this : new ObjectClient<T>(this.connection, this.discovery, this.resource, namespace, this.options);
  }

  /** GET one object. */
  get(name: string, options: CallOptions = {}): Promise<T> {
    return this.send({ name }, { method: 'GET' }, options);
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
        page = await this.connection.request<KubeList<T>>({ path, query }, options.signal, retryOption(options));
      } catch (err) {
        if (token === undefined || !isExpired(err)) throw err;
        const query = { ...base, resourceVersion: options.resourceVersion, resourceVersionMatch: options.resourceVersionMatch };
        return this.connection.request<KubeList<T>>({ path, query }, options.signal, retryOption(options));
      }
      items.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
      if (token === undefined) return { ...page, metadata: { ...page.metadata, continue: undefined }, items };
    }
  }

  /** POST a new object. */
  create(object: T, options: WriteOptions = {}): Promise<T> {
    return this.send({ namespace: namespaceOf(object) }, { method: 'POST', body: object, query: this.writeQuery(options) }, options, false);
  }

  /** PUT the whole object; its `metadata.resourceVersion`, when set, must be current or the server answers 409 Conflict. */
  replace(object: T, options: WriteOptions = {}): Promise<T> {
    return this.send(
      { name: nameOf(object), namespace: namespaceOf(object) },
      { method: 'PUT', body: object, query: this.writeQuery(options) },
      options,
    );
  }

  /** PUT the `status` subresource. */
  replaceStatus(object: T, options: WriteOptions = {}): Promise<T> {
    return this.send(
      { name: nameOf(object), namespace: namespaceOf(object), subresource: 'status' },
      { method: 'PUT', body: object, query: this.writeQuery(options) },
      options,
    );
  }

  /** PATCH an object; `type` picks the content type (default `merge`). `apply` needs a field manager (prefer {@link apply}). */
  patch(name: string, patch: unknown, type: PatchType = 'merge', options: PatchOptions = {}): Promise<T> {
    return this.send(
      { name },
      { method: 'PATCH', body: patch, contentType: PATCH_CONTENT_TYPES[type], query: this.patchQuery(type, options) },
      options,
    );
  }

  /** PATCH the `status` subresource. */
  patchStatus(name: string, patch: unknown, type: PatchType = 'merge', options: PatchOptions = {}): Promise<T> {
    return this.send(
      { name, subresource: 'status' },
      { method: 'PATCH', body: patch, contentType: PATCH_CONTENT_TYPES[type], query: this.patchQuery(type, options) },
      options,
    );
  }

  /**
   * Server-side apply: sends `configuration`, the fields this field manager wants to own with the
   * values it wants, and resolves with the whole object as stored. Creates the object when it
   * does not exist. Fields this manager applied before and leaves out now are removed (unless
   * another manager owns them too); fields other managers own are left alone, and changing one
   * fails with 409 Conflict unless `force` (see {@link ApplyOptions.force}).
   *
   * `apiVersion` and `kind` default to the client's resource; the namespace is
   * `metadata.namespace`, else the client's. The field manager is `options.fieldManager`, else the
   * client's (`ctx.objects()` in a controller: the controller's name); one is required.
   * Changes to `status` are ignored for resources with a status subresource: use
   * {@link applyStatus}. Works with kube-apiserver ≥ 1.18 (server-side apply is on by default
   * from 1.16 as beta, GA in 1.22).
   *
   * @example
   * ```ts
   * await ctx.objects(resources.configMaps, 'copies').apply(
   *   { metadata: { name: 'settings', labels: { app: 'web' } }, data: { mode: 'fast' } },
   *   { force: true },
   * );
   * ```
   * @throws TypeError without a field manager or `metadata.name`.
   */
  apply(configuration: ApplyConfiguration<T>, options: ApplyOptions = {}): Promise<T> {
    return this.applyTo(configuration, options, undefined);
  }

  /** {@link apply} to the `status` subresource: only the `status` fields of `configuration` count. */
  applyStatus(configuration: ApplyConfiguration<T>, options: ApplyOptions = {}): Promise<T> {
    return this.applyTo(configuration, options, 'status');
  }

  /**
   * Creates the object named by `object` or brings the existing one in line, by running `mutate`
   * on a draft (of `object` when it does not exist, else of the current object), and says what it
   * did: `'created'`, `'updated'` (replaced, guarded by the resourceVersion read: a concurrent
   * write gives 409 Conflict, see `retryOnConflict`) or `'unchanged'` (nothing written).
   *
   * @example
   * ```ts
   * const { result } = await ctx.objects(resources.configMaps, ns).createOrUpdate(
   *   { metadata: { name: 'settings', namespace: ns } },
   *   (cm) => { cm.data = { mode: 'fast' }; },
   * );
   * ```
   */
  createOrUpdate(object: T, mutate: MutateFn<T>, options: WriteOptions = {}): Promise<CreateOrUpdateResult<T>> {
    return createOrUpdate(this, object, mutate, options);
  }

  /**
   * As {@link createOrUpdate}, but an existing object gets only the changes, as JSON merge patches
   * (one for the object, one for `status` through the subresource), without a resourceVersion guard.
   */
  createOrPatch(object: T, mutate: MutateFn<T>, options: WriteOptions = {}): Promise<CreateOrUpdateResult<T>> {
    return createOrPatch(this, object, mutate, options);
  }

  private async applyTo(configuration: ApplyConfiguration<T>, options: ApplyOptions, subresource: 'status' | undefined): Promise<T> {
    const fieldManager = options.fieldManager ?? this.options.fieldManager;
    if (fieldManager === undefined || fieldManager === '') {
      throw new TypeError('apply needs a field manager: pass options.fieldManager or create the client with one');
    }
    const config = configuration as KubeObject;
    const name = config.metadata?.name;
    if (typeof name !== 'string' || name === '') throw new TypeError('apply needs metadata.name');
    const resource = await this.resolve(options.signal);
    const body = { ...config, apiVersion: config.apiVersion ?? resource.apiVersion, kind: config.kind ?? resource.kind };
    return this.send(
      { name, namespace: namespaceOf(config), ...(subresource === undefined ? {} : { subresource }) },
      {
        method: 'PATCH',
        body,
        contentType: PATCH_CONTENT_TYPES.apply,
        query: { ...writeQuery({ ...options, fieldManager }), force: options.force === true ? true : undefined },
      },
      options,
    );
  }

  private patchQuery(type: PatchType, options: PatchOptions): QueryParams {
    return { ...this.writeQuery(options), force: type === 'apply' && options.force === true ? true : undefined };
  }

  private writeQuery(options: WriteOptions): QueryParams {
    return writeQuery({ ...options, fieldManager: options.fieldManager ?? this.options.fieldManager });
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
   * {@link rxkube/client!EditConflictError}.
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
   * const updated = await client.objects(resources.configMaps, 'default').edit(cached, (draft) => {
   *   const meta = (draft.metadata ??= {});
   *   (meta.annotations ??= {})['example.com/seen'] = 'true';
   *   if (draft.data !== undefined) delete draft.data['old'];
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
    return new ObjectClient<T>(this.connection, this.discovery, this.resource, ns, this.options);
  }

  /**
   * DELETE an object. Resolves with the object when deletion is pending (finalizers, graceful
   * deletion) or with the server's success Status; with `ignoreNotFound`, with `undefined` when
   * there was nothing to delete.
   */
  delete(name: string, options: DeleteOptions & { readonly ignoreNotFound: true }): Promise<T | Status | undefined>;
  delete(name: string, options?: DeleteOptions): Promise<T | Status>;
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status | undefined> {
    if (options.ignoreNotFound === true) {
      const { ignoreNotFound: _ignore, ...rest } = options;
      return this.delete(name, rest).catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    }
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(options.propagationPolicy !== undefined ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      ...(options.preconditions !== undefined ? { preconditions: options.preconditions } : {}),
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
    };
    return this.send({ name }, { method: 'DELETE', body }, options);
  }

  private async resolve(signal?: AbortSignal): Promise<ResolvedResourceType<T>> {
    return this.discovery.resolve(this.resource, signal);
  }

  private async send<R>(
    target: { name?: string | undefined; namespace?: string | undefined; subresource?: string },
    request: Omit<KubeRequest, 'path'>,
    options: CallOptions,
    named = true,
  ): Promise<R> {
    const { signal } = options;
    const resource = await this.resolve(signal);
    const namespace = target.namespace ?? this.namespace;
    if (resource.namespaced && (namespace === undefined || namespace === '')) {
      throw new TypeError(`${resource.kind} is namespaced: give the client a namespace or set metadata.namespace`);
    }
    if (named && (target.name === undefined || target.name === '')) {
      throw new TypeError(`${resource.kind}: an object name is required`);
    }
    const path = resourcePath(resource, { namespace, name: named ? target.name : undefined, subresource: target.subresource });
    return this.connection.request<R>({ ...request, path }, signal, retryOption(options));
  }
}

function retryOption(options: CallOptions): RequestOptions {
  return {
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
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
