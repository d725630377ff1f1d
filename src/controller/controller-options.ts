import type { Registry } from 'prom-client';
import type { Permission } from '../api/permission.js';
import type { Observable, SchedulerLike } from 'rxjs';
import type { CachedEntry, KubeObject } from '../api/kube-object.js';
import type { KubeClient } from '../client/kube-client.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { InformerFactory } from '../informer/informer-factory.js';
import type { EventPredicate } from '../informer/predicates.js';
import type { Logger } from '../logging/logger.js';
import type { ControllerMetricsRecorder } from '../metrics/controller-metrics.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import type { Request } from '../workqueue/request.js';
import type { ReconcileReturn } from '../workqueue/reconciler.js';
import type { ControllerSource } from './controller-source.js';
import type { ResourceType } from '../api/resource.js';
import type { ReconcileContext } from './reconcile-context.js';
import type { ReadYourWritesOptions } from './read-your-writes-options.js';

/** `for` with its own predicates. */
export interface ForSpec<T extends KubeObject> {
  readonly source: ControllerSource<T> | ResourceType<T>;
  readonly predicates?: readonly EventPredicate<T>[];
  /**
   * Keeps only objects passing this test, with client-go's filtering-handler transitions (CT-3):
   * an update leaving the filter arrives as a delete of the old object, one entering it as an
   * add — so the mapping still sees objects that stopped matching. Applied before `predicates`.
   */
  readonly filter?: (object: CachedEntry<T>) => boolean;
}

/**
 * An `owns` entry: events of owned objects enqueue their controller owner of the `for` type.
 * Typed by its source: `{ source: informerSource(informers.pods()), filter: (pod) => … }` gets
 * `K8s.Pod`s.
 */
export interface OwnsSpec<O extends KubeObject = KubeObject> {
  readonly source: ControllerSource<O> | ResourceType<O>;
  readonly predicates?: readonly EventPredicate<O>[];
  /**
   * Keeps only objects passing this test, with client-go's filtering-handler transitions (CT-3):
   * an update leaving the filter arrives as a delete of the old object, one entering it as an
   * add — so the mapping still sees objects that stopped matching. Applied before `predicates`.
   */
  readonly filter?: (object: CachedEntry<O>) => boolean;
  /** Enqueue every owner of the `for` type, not only the controller owner. */
  readonly matchEveryOwner?: boolean;
  /** With a resource type as `source`: cache only the owned objects' metadata (`InformerFactory.metadata`). */
  readonly metadataOnly?: boolean;
}

/** One `owns` entry: a source or resource type of the owned objects, or an {@link OwnsSpec}. */
export type OwnsEntry<O extends KubeObject = KubeObject> = ControllerSource<O> | ResourceType<O> | OwnsSpec<O>;

/**
 * A `watches` entry: events of any type mapped to requests by `map` (old and new object of
 * updates). Typed by its source: in `controller({ watches: [...] })` each entry's `map`, `filter`
 * and `predicates` get the type of that entry's source (`informerSource(informers.configMaps())`
 * gives `K8s.ConfigMap`); outside the call, declare it as `WatchSpec<K8s.ConfigMap>` or build it
 * with {@link rxkube/controller!watch}.
 */
export interface WatchSpec<U extends KubeObject = KubeObject> {
  /** An informer source, or a resource type resolved through `informers`. */
  readonly source: ControllerSource<U> | ResourceType<U>;
  /** The requests an object's event enqueues (the object as cached: metadata with name, uid and resourceVersion). */
  map(object: CachedEntry<U>): readonly (Request | string)[];
  readonly predicates?: readonly EventPredicate<U>[];
  /**
   * Keeps only objects passing this test, with client-go's filtering-handler transitions (CT-3):
   * an update leaving the filter arrives as a delete of the old object, one entering it as an
   * add — so the mapping still sees objects that stopped matching. Applied before `predicates`.
   */
  filter?(object: CachedEntry<U>): boolean;
  /** With a resource type as `source`: cache only the objects' metadata (`InformerFactory.metadata`); `map` then gets `PartialObjectMetadata`. */
  readonly metadataOnly?: boolean;
  /**
   * Work-queue priority of this entry's requests (higher is handed out first; a queued key keeps
   * the highest priority it was added with, PQ-1). Default: the event's own (low for initial-list
   * adds and resyncs, 0 otherwise).
   */
  readonly priority?: number;
}

/**
 * One entry of a controller's `dynamicWatches`: a {@link WatchSpec} (a source or resource type and
 * its `map`), with the key that identifies it in the set. Default key: `apiVersion/kind` of a
 * resource type (with `(metadata)` for `metadataOnly`), or the source's name.
 */
export type DynamicWatchSpec<U extends KubeObject = KubeObject> = WatchSpec<U> & {
  /** Identifies the entry across emissions of the set: same key, same watch (kept, not restarted). */
  readonly key?: string;
};

/**
 * One cluster of a multi-cluster controller: its client, and optionally the informer factory
 * that resolves the controller's resource types in it (default: a new `InformerFactory` over
 * the client, started by the controller's registrations).
 */
export type ClusterTarget = KubeClient | { readonly client: KubeClient; readonly informers?: InformerFactory };

/**
 * A change of a multi-cluster controller's fleet (multicluster-runtime's engage / disengage):
 * `added` engages a cluster, `changed` replaces it (the old one is let go first, as if removed),
 * `removed` lets it go. An `added` for a name already engaged counts as `changed`, a `changed` for
 * an unknown name as `added`, a `removed` for an unknown name is ignored.
 */
export type ClusterEvent =
  | { readonly type: 'added' | 'changed'; readonly name: string; readonly cluster: ClusterTarget }
  | { readonly type: 'removed'; readonly name: string };

/** The reconcile function of a controller. */
export type ControllerReconciler<T extends KubeObject> = (request: Request, ctx: ReconcileContext<T>) => ReconcileReturn;

/**
 * Options of {@link controller}. Durations in ms. `W` and `O` are the object types of the
 * `watches` and `owns` entries, one per entry, inferred from each entry's source: they type that
 * entry's `map`, `filter` and `predicates`.
 */
export interface ControllerOptions<
  T extends KubeObject = KubeObject,
  W extends readonly KubeObject[] = readonly KubeObject[],
  O extends readonly KubeObject[] = readonly KubeObject[],
> {
  /**
   * Labels the controller's metrics and logs; unique within a manager (`Manager.add` refuses a
   * second controller of the same name, unless `skipNameValidation`), not within the process.
   * Default the lower-case kind of `for`.
   */
  readonly name?: string;
  /** The reconciled type: each event enqueues the object's own key (CR-8). At most one. */
  readonly for?: ControllerSource<T> | ForSpec<T> | ResourceType<T>;
  /** Owned types: an event enqueues the owned object's controller owner of the `for` type (CR-9). Needs `for`. */
  readonly owns?: { readonly [K in keyof O]: OwnsEntry<O[K]> };
  /** Any type, mapped to requests by a function; each entry typed by its own source. */
  readonly watches?: { readonly [K in keyof W]: WatchSpec<W[K]> };
  /**
   * Watches that change while the controller runs (docs/runtime-change.md): each emission is the
   * whole current set, diffed by each entry's key (`DynamicWatchSpec.key`, default the resource
   * type's `apiVersion/kind`). An entry joining the set is watched from then on (its cached
   * objects first); one leaving it is dropped at once — its later events enqueue nothing, queued
   * and running reconciles finish — and its informer (a lease on `informers`) is stopped and its
   * cache freed after the factory's `stopGraceMs`. Not waited for at start (CR-5 covers the fixed
   * sources); with `crdWatches` it follows the CRDs labelled for the controller.
   */
  readonly dynamicWatches?: Observable<readonly DynamicWatchSpec[]>;
  /** Predicates for every `for`, `owns` and `watches` event (controller-runtime's `WithEventFilter`). */
  readonly predicates?: readonly EventPredicate[];
  /** Brings the world in line for one request. */
  readonly reconcile: ControllerReconciler<T>;
  /** Concurrent reconciles (distinct keys); ≤ 0 or unset → 1. */
  readonly concurrency?: number;
  /** Retry delays; default the work queue's (per-item exponential 5 ms … 1000 s). */
  readonly rateLimiter?: RateLimiter;
  /** How long to wait for the caches to sync before failing; default 120 000 (2 minutes, CR-4). */
  readonly cacheSyncTimeoutMs?: number;
  /**
   * Superseding reconciles (default false): a newer event for a key aborts its running reconcile
   * through `ctx.signal` (reason `ReconcileAbortedError('superseded')`) and runs it again once it
   * settled, never two at once per key. For level-based, idempotent reconciles that honour
   * `ctx.signal` (pass it to every client call), e.g. long ones whose input changes while they
   * run. Not for reconciles whose partial work the next run cannot see (see the work queue's
   * `supersede`).
   */
  readonly supersede?: boolean;
  /**
   * Time-to-live of `ctx.expectations` records (ms): an expectation not met by then counts as
   * met, so a lost watch event cannot stall an owner. Default 300 000 (kube-controller-manager's).
   */
  readonly expectationsTtlMs?: number;
  /** Per-reconcile deadline (CR-3); default none. */
  readonly reconcileTimeoutMs?: number;
  /**
   * A reconcile running longer than this (ms) is *stuck*: logged (warn, with its object and
   * reconcile id), counted in `rxkube_controller_stuck_reconciles{controller}` and named by the
   * manager's liveness check `reconciles` (`/healthz` fails until it settles). Default 600 000
   * (10 minutes); 0 turns it off.
   */
  readonly stuckReconcileThresholdMs?: number;
  /**
   * Read-your-writes (default on; docs/read-your-writes.md): after a reconcile writes an object
   * through `ctx` (create, update, patch, apply, delete, `edit`), the next reconcile of that
   * object, and the next reconcile of the same key, starts only once the controller's caches show
   * the write (its resourceVersion or newer, or the delete), and `ctx`'s stores never return an
   * older copy of it. The wait is bounded by `timeoutMs` (default 10 000) on `scheduler`; a
   * reconcile still waiting then fails with a `ReadYourWritesTimeoutError` and is requeued.
   * `false` turns it off.
   */
  readonly readYourWrites?: boolean | ReadYourWritesOptions;
  /** On stop, how long running reconciles may finish before being aborted; default 30 000. */
  readonly shutdownGracePeriodMs?: number;
  /** Start only while leading (default true). */
  readonly needLeaderElection?: boolean;
  /**
   * Warm standby (default false; docs/leader-election.md "Warm standbys"): under a manager that is
   * not leading yet, register on the sources and hold their requests (one per key) without
   * reconciling, so that on gaining leadership the workers start at once with a filled queue.
   * Nothing is reconciled or written before leadership. Without a manager, or with
   * `needLeaderElection: false`, it changes nothing.
   */
  readonly warmup?: boolean;
  /** Allow a name that another controller of the same manager already uses (they then share metric labels). */
  readonly skipNameValidation?: boolean;
  /** Client handed to reconciles (`ctx.client`, `ctx.objects()`); default the manager's. */
  readonly client?: KubeClient;
  /**
   * Field manager of the writes made through `ctx.objects()` (server-side apply ownership,
   * `managedFields`); default the controller's `name`. Exposed as `ctx.fieldManager`.
   */
  readonly fieldManager?: string;
  /** Event recorder handed to reconciles; default the manager's (reporting as the controller's name), else a no-op recorder. */
  readonly recorder?: EventRecorder;
  /** Default the manager's logger; a no-op logger when run without a manager. */
  readonly logger?: Logger;
  /** Records controller-runtime's controller and workqueue metrics here; default the manager's registry. */
  readonly metricsRegistry?: Registry;
  /** Or: a custom recorder for the controller metrics. */
  readonly metrics?: ControllerMetricsRecorder;
  /** Or: custom work-queue metric hooks. */
  readonly workqueueMetrics?: WorkQueueMetrics;
  /** Resolves resource types given as `for` / `owns` / `watches` to shared informers. */
  readonly informers?: InformerFactory;
  /**
   * One controller over several clusters, by name (multicluster-runtime's model): every `for` /
   * `owns` / `watches` entry (given as resource types) is watched in every cluster, through that
   * cluster's informers; each request carries its `cluster`, one work queue serves them all (keys
   * `cluster::namespace/name`), and the reconcile's `ctx.object`, `ctx.store`, `ctx.client` and
   * `ctx.objects()` are the request's cluster's. `client` and `informers` are then not used.
   * Names must not contain `/` or `:`.
   *
   * Or a fleet that changes while the controller runs: an Observable of {@link ClusterEvent}s (e.g.
   * `kubeconfigSecretClusters(...)`, or `clusterSetChanges(sets$)`). Each cluster is engaged when
   * added: its informers start, its requests wait for its caches (CR-5, per cluster), then join
   * the queue; the controller itself is ready at once. When it is removed (or replaced) its
   * informers stop, its queued keys are dropped, its running reconciles' signals abort with a
   * `ClusterRemovedError` (reported `aborted`, not requeued), and no reconcile of it starts after.
   * See docs/multi-cluster.md.
   *
   * ```ts
   * controller({ for: resources.configMaps, clusters: { east: eastClient, west: westClient },
   *   reconcile: (req, ctx) => sync(req.cluster, ctx.client) });   // req.cluster: 'east' or 'west'
   * ```
   */
  readonly clusters?: Readonly<Record<string, ClusterTarget>> | Observable<ClusterEvent>;
  /** Timers and clock; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * What the reconciler does on the API server besides reading its informers' caches (writes,
   * fresh reads): declared here, they become the manager's derived RBAC rules (`mgr.rbac()`).
   * The informers' get/list/watch and the event recorder's writes are added by the manager.
   *
   * ```ts
   * permissions: [
   *   { resource: resources.pods, verbs: ['create', 'delete', 'patch'] },
   *   { resource: resources.replicaSets, subresource: 'status', verbs: ['update'] },
   * ]
   * ```
   */
  readonly permissions?: readonly Permission[];
}

export type { ResourceType };
