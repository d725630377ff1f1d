import {
  type Observable,
  type SchedulerLike,
  Subscription,
  asyncScheduler,
  combineLatest,
  defer,
  distinctUntilChanged,
  map,
  merge,
  of,
} from 'rxjs';
import { resources } from '../api/builtin-resources.js';
import { Indexer } from '../cache/indexer.js';
import type * as K8s from '../api/builtin-types.js';
import type { Cached, KubeObject, PartialObjectMetadata, UnstructuredObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { FreezeMode } from '../cache/freeze-object.js';
import type { Indexers } from '../cache/store.js';
import type { ListWatchScope } from '../client/http-list-watcher.js';
import type { KubeClientBase } from '../client/kube-client-base.js';
import type { Runnable } from '../api/runnable.js';
import type { ListWatchOptions } from '../reflector/list-watch-options.js';
import type { ListWatcher } from '../api/list-watcher.js';
import { reflector } from '../reflector/reflector.js';
import { InformerConfigError } from './informer-errors.js';
import { informerFactoryRunnable, type InformerScope } from './informer-factory-runnable.js';
import { multiNamespaceReflector } from './multi-namespace.js';
import { type Lister, lister } from './lister.js';
import { sharedInformer } from './shared-informer.js';
import type { SharedInformer } from './shared-informer-interface.js';
import { type WaitForCacheSyncOptions, waitForCacheSync } from './wait-for-cache-sync.js';

/** Makes the transport of one informer (e.g. a client's `listWatcher`, or a counting wrapper in tests). */
export type ListWatcherFactory = (resource: ResourceType, scope: ListWatchScope) => ListWatcher;

/** Options of {@link InformerFactory}. Durations in ms. */
export interface InformerFactoryOptions {
  /** Default namespace of every informer (absent: all namespaces). */
  readonly namespace?: string;
  /**
   * Default set of namespaces of every informer of a namespaced resource, instead of one namespace
   * or all (controller-runtime's `DefaultNamespaces`, for RBAC that forbids cluster-wide lists):
   * each informer lists and watches every namespace separately and merges them into one cache and
   * one event stream, synced when every namespace has listed. A request's `namespace` (or
   * `namespace: null`) overrides it; cluster-scoped resources (`namespaced: false`) ignore it.
   */
  readonly namespaces?: readonly string[];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Default resync period of informers (SI-1). Default 0. */
  readonly defaultResyncPeriodMs?: number;
  /** Stop grace of each informer after its last subscriber left (see `sharedInformer`). Default 0. */
  readonly stopGraceMs?: number;
  readonly freeze?: FreezeMode;
  /** Reflector options of every informer. */
  readonly listWatch?: ListWatchOptions;
  readonly scheduler?: SchedulerLike;
}

/** Per-informer choices; the informer is shared between calls with equal choices. */
export interface InformerRequest<T extends KubeObject = KubeObject> {
  /** Overrides the factory's namespace (and namespaces); `null` means all namespaces. */
  readonly namespace?: string | null;
  /** Overrides the factory's `namespaces`: one informer over these namespaces (see {@link InformerFactoryOptions.namespaces}). */
  readonly namespaces?: readonly string[];
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Transform before caching (identity of the function is part of the informer's key). Default drops managedFields; `null` none. */
  readonly transform?: ((object: T) => T) | null;
  /** Index functions, added when the informer is created or, if it exists and has not started, with `addIndexers`. */
  readonly indexers?: Indexers<T>;
  readonly defaultResyncPeriodMs?: number;
  /**
   * List and watch only the objects' metadata (`PartialObjectMetadata`, client-go's metadata
   * informers): the cache holds `{ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata',
   * metadata }` per object. Usually through {@link InformerFactory.metadata}.
   */
  readonly metadataOnly?: boolean;
}

const transformIds = new WeakMap<object, number>();
let nextTransformId = 0;
function transformId(t: unknown): string {
  if (t === undefined) return 'default';
  if (t === null) return 'none';
  let id = transformIds.get(t as object);
  if (id === undefined) {
    id = ++nextTransformId;
    transformIds.set(t as object, id);
  }
  return `fn${id}`;
}

interface Entry {
  readonly informer: SharedInformer<KubeObject>;
  readonly resource: ResourceType;
  readonly namespace: string | undefined;
  started: Subscription | undefined;
  /** The last error the informer reported on `errors$` (a failed list or watch, …). */
  lastError: Error | undefined;
  /** Handed out by `for()` (or `start()`ed): kept for the factory's life, never freed. */
  pinned: boolean;
  /** Open leases (`acquire`); the informer is freed once none is left and it has stopped. */
  leases: number;
}

/**
 * A hold on one informer of a factory, from {@link InformerFactory.acquire}: `release()` gives it
 * back (once; later calls do nothing).
 */
export interface InformerLease<T extends KubeObject = KubeObject> {
  readonly informer: SharedInformer<T>;
  release(): void;
}

/**
 * One shared informer per resource, namespace, selectors and transform (client-go's
 * SharedInformerFactory): every `for(...)` with the same choices returns the same informer, so any
 * number of controllers share one list/watch and one cache.
 *
 * `start()` runs every informer created so far (call again after creating more); `stop()` stops
 * them; `waitForCacheSync()` waits for the started ones. For a manager, `runnable()` wraps the
 * factory as a cache runnable.
 *
 * @example
 * ```ts
 * const factory = new InformerFactory(client, { namespace: 'default' });
 * const pods = factory.pods();                         // SharedInformer<K8s.Pod>
 * const widgets = factory.for(WIDGETS);                // SharedInformer<Widget> (a ResourceType<Widget>)
 * pods.events$.subscribe(handle);
 * factory.start();
 * await factory.waitForCacheSync(30_000);
 * factory.lister(pods).get('default', 'web-0');
 * ```
 */
export class InformerFactory {
  private readonly informers = new Map<string, Entry>();
  private readonly makeListWatcher: ListWatcherFactory;
  private readonly scheduler: SchedulerLike;
  /** The client the informers list and watch through; undefined for a `ListWatcherFactory`. */
  readonly client: KubeClientBase | undefined;

  constructor(
    source: KubeClientBase | ListWatcherFactory,
    private readonly options: InformerFactoryOptions = {},
  ) {
    this.makeListWatcher =
      typeof source === 'function' ? source : (resource, scope) => source.listWatcher(resource, scope);
    this.client = typeof source === 'function' ? undefined : source;
    this.scheduler = options.scheduler ?? asyncScheduler;
  }

  /** The shared informer for `resource` with `request`'s choices; typed by the resource type (`for(resources.pods)` is a `SharedInformer<K8s.Pod>`; a type without one, `{ apiVersion, kind }`, gives `UnstructuredObject`s). */
  for<T extends KubeObject = UnstructuredObject>(resource: ResourceType<T>, request: InformerRequest<T> = {}): SharedInformer<T> {
    const entry = this.entryFor(resource, request);
    entry.pinned = true;
    return entry.informer as unknown as SharedInformer<T>;
  }

  /**
   * A lease on the shared informer for `resource` (as {@link InformerFactory.for}), for a user whose need ends (a
   * controller's dynamic watch): an informer that only leases ever asked for is left out of
   * `start()`, `run$`, `synced$` and `scopes()`, runs while its leases' listeners are subscribed,
   * and once the last lease is released and its list/watch has stopped (the factory's
   * `stopGraceMs` after its last subscriber left) the factory forgets it and empties its cache. A
   * later `acquire` creates a fresh one. An informer also handed out by `for()` is never freed.
   * `{ apiVersion, kind }` is enough: the client's discovery resolves plural and scope.
   */
  acquire<T extends KubeObject = UnstructuredObject>(resource: ResourceType<T>, request: InformerRequest<T> = {}): InformerLease<T> {
    const entry = this.entryFor(resource, request);
    entry.leases++;
    let released = false;
    return {
      informer: entry.informer as unknown as SharedInformer<T>,
      release: () => {
        if (released) return;
        released = true;
        entry.leases--;
        if (entry.leases === 0 && !entry.pinned) this.scheduler.schedule(() => this.freeIfUnused(entry), this.options.stopGraceMs ?? 0);
      },
    };
  }

  /**
   * Forgets a lease-only informer nobody holds any more and empties its cache, once it has
   * stopped; while something else still runs it (a direct subscriber), checks again every grace
   * (at least a second) until it stops or is leased again.
   */
  private freeIfUnused(entry: Entry): void {
    if (entry.leases > 0 || entry.pinned) return;
    if (entry.informer.isRunning) {
      this.scheduler.schedule(() => this.freeIfUnused(entry), Math.max(this.options.stopGraceMs ?? 0, 1000));
      return;
    }
    for (const [key, e] of this.informers) if (e === entry) this.informers.delete(key);
    if (entry.informer.store instanceof Indexer) entry.informer.store.replace([]);
  }

  private entryFor<T extends KubeObject>(resource: ResourceType<T>, request: InformerRequest<T>): Entry {
    if (typeof resource.apiVersion !== 'string' || typeof resource.kind !== 'string' || resource.kind === '')
      throw new InformerConfigError('InformerFactory.for: resource needs apiVersion and kind', { option: 'resource' });
    const namespaceSet =
      request.namespace !== undefined || resource.namespaced === false
        ? undefined
        : [...new Set(request.namespaces ?? this.options.namespaces ?? [])].sort();
    const multi = namespaceSet !== undefined && namespaceSet.length > 1 ? namespaceSet : undefined;
    const namespace =
      request.namespace === null
        ? undefined
        : (request.namespace ?? (namespaceSet !== undefined && namespaceSet.length === 1 ? namespaceSet[0] : this.options.namespace));
    const scope: ListWatchScope = {
      namespace,
      labelSelector: request.labelSelector ?? this.options.labelSelector,
      fieldSelector: request.fieldSelector ?? this.options.fieldSelector,
      ...(request.metadataOnly === true ? { metadataOnly: true } : {}),
      // The default transform drops managedFields: watch lines are parsed without them.
      ...(request.transform === undefined ? { omitManagedFields: true } : {}),
    };
    const key = JSON.stringify([
      resource.apiVersion,
      resource.kind,
      multi === undefined ? (scope.namespace ?? '') : multi,
      scope.labelSelector ?? '',
      scope.fieldSelector ?? '',
      transformId(request.transform),
      ...(request.metadataOnly === true ? ['metadata'] : []),
    ]);
    let entry = this.informers.get(key);
    if (entry === undefined) {
      const where = multi !== undefined ? `/${multi.join(',')}` : namespace === undefined ? '' : `/${namespace}`;
      const name = `${resource.kind}${request.metadataOnly === true ? '(metadata)' : ''}${where}`;
      const listWatch = { scheduler: this.scheduler, ...this.options.listWatch };
      const source =
        multi === undefined
          ? { listWatcher: this.makeListWatcher(resource, scope) as ListWatcher<T>, listWatch }
          : multiNamespaceReflector(
              new Map(multi.map((ns) => [ns, reflector(this.makeListWatcher(resource, { ...scope, namespace: ns }) as ListWatcher<T>, listWatch)])),
            );
      const informer = sharedInformer<T>(
        source,
        {
          name,
          resource,
          scheduler: this.scheduler,
          ...(request.indexers === undefined ? {} : { indexers: request.indexers }),
          ...(request.transform === undefined ? {} : { transform: request.transform }),
          ...(this.options.freeze === undefined ? {} : { freeze: this.options.freeze }),
          ...(this.options.stopGraceMs === undefined ? {} : { stopGraceMs: this.options.stopGraceMs }),
          defaultResyncPeriodMs: request.defaultResyncPeriodMs ?? this.options.defaultResyncPeriodMs ?? 0,
        },
      );
      const created: Entry = {
        informer: informer as unknown as SharedInformer<KubeObject>,
        resource,
        namespace: scope.namespace,
        started: undefined,
        lastError: undefined,
        pinned: false,
        leases: 0,
      };
      informer.errors$.subscribe((err) => (created.lastError = err));
      informer.synced$.subscribe((synced) => {
        if (synced) created.lastError = undefined;
      });
      entry = created;
      this.informers.set(key, entry);
    } else if (request.indexers !== undefined) {
      const existing = entry.informer.store.getIndexers();
      const missing = Object.fromEntries(Object.entries(request.indexers).filter(([n]) => !(n in existing)));
      if (Object.keys(missing).length > 0) (entry.informer as unknown as SharedInformer<T>).addIndexers(missing);
    }
    return entry;
  }

  /**
   * The shared metadata-only informer for `resource` (client-go's metadata informer,
   * controller-runtime's `OnlyMetadata`): lists and watches `PartialObjectMetadata`, so the cache
   * keeps names, labels, annotations, owner references and finalizers but no spec or status — a
   * fraction of the memory for large types (pods, secrets) that a controller only owns or watches.
   * Its `resource` stays `resource`, so it serves as a controller's `owns` / `watches` source
   * (`informerSource(informers.metadata(resources.pods))`, or `{ source: resources.pods, metadataOnly: true }`).
   *
   * ```ts
   * const pods = informers.metadata(resources.pods);   // SharedInformer<PartialObjectMetadata>
   * ```
   */
  metadata(resource: ResourceType, request: Omit<InformerRequest<PartialObjectMetadata>, 'metadataOnly'> = {}): SharedInformer<PartialObjectMetadata> {
    return this.for<PartialObjectMetadata>(resource as ResourceType<PartialObjectMetadata>, { ...request, metadataOnly: true });
  }

  /** A lister over `informer`'s cache (or the informer for `resource`); it hands out {@link Cached} objects. */
  lister<T extends KubeObject = UnstructuredObject>(target: SharedInformer<T> | ResourceType<T>, request?: InformerRequest<T>): Lister<Cached<T>> {
    const informer = 'store' in target ? target : this.for<T>(target, request);
    return lister(informer.store);
  }

  /** `for(resources.pods)`. */
  pods(request?: InformerRequest<K8s.Pod>): SharedInformer<K8s.Pod> {
    return this.for(resources.pods, request);
  }
  /** `for(resources.configMaps)`. */
  configMaps(request?: InformerRequest<K8s.ConfigMap>): SharedInformer<K8s.ConfigMap> {
    return this.for(resources.configMaps, request);
  }
  /** `for(resources.secrets)`. */
  secrets(request?: InformerRequest<K8s.Secret>): SharedInformer<K8s.Secret> {
    return this.for(resources.secrets, request);
  }
  /** `for(resources.services)`. */
  services(request?: InformerRequest<K8s.Service>): SharedInformer<K8s.Service> {
    return this.for(resources.services, request);
  }
  /** `for(resources.serviceAccounts)`. */
  serviceAccounts(request?: InformerRequest<K8s.ServiceAccount>): SharedInformer<K8s.ServiceAccount> {
    return this.for(resources.serviceAccounts, request);
  }
  /** `for(resources.events)` (core/v1 Events). */
  events(request?: InformerRequest<K8s.Event>): SharedInformer<K8s.Event> {
    return this.for(resources.events, request);
  }
  /** `for(resources.namespaces)`, always across all namespaces. */
  namespaces(request?: InformerRequest<K8s.Namespace>): SharedInformer<K8s.Namespace> {
    return this.for(resources.namespaces, { namespace: null, ...request });
  }
  /** `for(resources.nodes)`, always across all namespaces. */
  nodes(request?: InformerRequest<K8s.Node>): SharedInformer<K8s.Node> {
    return this.for(resources.nodes, { namespace: null, ...request });
  }
  /** `for(resources.deployments)`. */
  deployments(request?: InformerRequest<K8s.Deployment>): SharedInformer<K8s.Deployment> {
    return this.for(resources.deployments, request);
  }
  /** `for(resources.replicaSets)`. */
  replicaSets(request?: InformerRequest<K8s.ReplicaSet>): SharedInformer<K8s.ReplicaSet> {
    return this.for(resources.replicaSets, request);
  }
  /** `for(resources.statefulSets)`. */
  statefulSets(request?: InformerRequest<K8s.StatefulSet>): SharedInformer<K8s.StatefulSet> {
    return this.for(resources.statefulSets, request);
  }
  /** `for(resources.daemonSets)`. */
  daemonSets(request?: InformerRequest<K8s.DaemonSet>): SharedInformer<K8s.DaemonSet> {
    return this.for(resources.daemonSets, request);
  }
  /** `for(resources.jobs)`. */
  jobs(request?: InformerRequest<K8s.Job>): SharedInformer<K8s.Job> {
    return this.for(resources.jobs, request);
  }
  /** `for(resources.leases)`. */
  leases(request?: InformerRequest<K8s.Lease>): SharedInformer<K8s.Lease> {
    return this.for(resources.leases, request);
  }

  /** Every informer created so far (but the lease-only ones, see {@link InformerFactory.acquire}). */
  list(): SharedInformer[] {
    return this.pinnedEntries().map((e) => e.informer);
  }

  /** Every informer created so far (but the lease-only ones), with its resource and namespace (`undefined`: all namespaces). */
  scopes(): readonly InformerScope[] {
    return this.pinnedEntries().map(({ informer, resource, namespace }) => ({ informer, resource, namespace }));
  }

  /** Informers held through a lease only (see {@link InformerFactory.acquire}), with their scope: what dynamic watches use right now. */
  leased(): readonly InformerScope[] {
    return [...this.informers.values()]
      .filter((e) => !e.pinned)
      .map(({ informer, resource, namespace }) => ({ informer, resource, namespace }));
  }

  private pinnedEntries(): Entry[] {
    return [...this.informers.values()].filter((e) => e.pinned);
  }

  /** Starts every informer created so far and not yet started by the factory (idempotent). */
  start(): void {
    for (const entry of this.pinnedEntries()) {
      if (entry.started !== undefined && !entry.started.closed) continue;
      entry.started = entry.informer.run$.subscribe({ error: () => undefined });
    }
  }

  /** Releases the factory's hold on every informer (each stops once it has no other subscriber and its grace passed). */
  stop(): void {
    for (const entry of this.informers.values()) {
      entry.started?.unsubscribe();
      entry.started = undefined;
    }
  }

  /**
   * Resolves once every informer started by the factory has synced: `true`, or `false` when the
   * timeout passed or the signal aborted first (SI-16); then `unsynced()` says which and why. With
   * no started informer it resolves `true`.
   */
  waitForCacheSync(timeout?: number | WaitForCacheSyncOptions): Promise<boolean> {
    const opts = typeof timeout === 'number' ? { timeoutMs: timeout } : (timeout ?? {});
    const started = [...this.informers.values()].filter((e) => e.started !== undefined && !e.started.closed);
    return waitForCacheSync(
      started.map((e) => e.informer),
      { scheduler: this.scheduler, ...opts },
    );
  }

  /**
   * The informers started by the factory that have not synced, each with the last error it
   * reported (a failed list or watch: an unreachable server, a kind the server does not serve,
   * 403, …), if any: why `waitForCacheSync` returned false.
   */
  unsynced(): { readonly informer: string; readonly lastError: Error | undefined }[] {
    return [...this.informers.values()]
      .filter((e) => e.started !== undefined && !e.started.closed && !e.informer.hasSynced())
      .map((e) => ({ informer: e.informer.name, lastError: e.lastError }));
  }

  /**
   * `true` while every informer of the factory has synced. The set of informers is taken when
   * this stream is subscribed (so a runnable made before the controllers asked for their informers
   * still covers them).
   */
  get synced$(): Observable<boolean> {
    return defer(() => {
      const informers = this.list();
      if (informers.length === 0) return of(true);
      return combineLatest(informers.map((i) => i.synced$)).pipe(map((v) => v.every(Boolean)));
    }).pipe(distinctUntilChanged());
  }

  /** Runs every informer of the factory while subscribed (the set is taken at subscribe time; emits nothing). */
  get run$(): Observable<never> {
    return defer(() => merge(...this.list().map((i) => i.run$)));
  }

  /**
   * The factory as a manager cache runnable: when the manager starts its caches it runs every
   * informer created by then, and reports synced when all are. Added to a manager, it takes the
   * manager's logger and informer monitor (reflector metrics, logged failures, why a cache does
   * not sync), and declares get/list/watch of its informers' resources for `mgr.rbac()`.
   */
  runnable(name = 'informer-factory'): Runnable {
    return informerFactoryRunnable(this, name);
  }
}
