import { asyncScheduler, isObservable, map, NEVER, type Observable, type SchedulerLike } from 'rxjs';
import type { Cached, KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { Indexer } from '../cache/indexer.js';
import type { Store } from '../cache/store.js';
import type { Registry } from 'prom-client';
import { KubeClientBase } from '../client/kube-client-base.js';
import type { KubeClient } from '../client/kube-client.js';
import { InformerFactory } from '../informer/informer-factory.js';
import { parseRequestKey, type WorkQueueAdd } from '../workqueue/request.js';
import { sourceName } from './controller-source.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { EventPredicate } from '../informer/predicates.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import { controllerMetrics, type ControllerMetricsRecorder } from '../metrics/controller-metrics.js';
import { workqueueMetrics } from '../metrics/workqueue-metrics.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';
import type { WorkQueueOptions } from '../workqueue/work-queue-options.js';
import { ControllerBuildError } from './controller-errors.js';
import type { ClusterEvent, ClusterTarget, ControllerOptions, ControllerReconciler } from './controller-options.js';
import { splitApiVersion, type ResourceType } from '../api/resource.js';
import { noopEventRecorder } from './noop-event-recorder.js';
import { resolveSources, type ResolvedSources } from './resolve-sources.js';
import { bindSources, type Binding } from './source-bindings.js';
import { ControllerExpectations } from './expectations.js';
import { DEFAULT_STUCK_RECONCILE_THRESHOLD_MS, StuckReconciles } from './stuck-reconciles.js';
import { ReadYourWrites } from './read-your-writes.js';
import { readYourWritesSettings } from './read-your-writes-options.js';
import { dynamicBinder } from './dynamic-binding.js';
import type { DynamicWatches } from './dynamic-watches.js';

const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/**
 * Every option `controller()` reads; the `satisfies` keeps the list complete and exact as
 * {@link ControllerOptions} changes.
 */
const OPTION_NAMES: ReadonlySet<string> = new Set(
  Object.keys({
    name: true, for: true, owns: true, watches: true, predicates: true, reconcile: true, concurrency: true, rateLimiter: true,
    cacheSyncTimeoutMs: true, supersede: true, expectationsTtlMs: true, reconcileTimeoutMs: true, shutdownGracePeriodMs: true,
    needLeaderElection: true, skipNameValidation: true, client: true, fieldManager: true, recorder: true, logger: true,
    metricsRegistry: true, metrics: true, workqueueMetrics: true, informers: true, clusters: true, scheduler: true, permissions: true,
    stuckReconcileThresholdMs: true,
    readYourWrites: true,
    warmup: true,
    dynamicWatches: true,
  } satisfies Record<keyof ControllerOptions, true>),
);

/** A checked controller definition with every default applied: what each run works from. */
export interface ControllerDefinition<T extends KubeObject> {
  readonly name: string;
  /** Expectations of the controller's own writes (`ctx.expectations`), lowered by `owns` events. */
  readonly expectations: ControllerExpectations;
  /** Field manager of the writes through `ctx.objects()`: `options.fieldManager`, else `name`. */
  readonly fieldManager: string;
  readonly needLeaderElection: boolean;
  readonly reconcile: ControllerReconciler<T>;
  /** The `for` type (owner of `owns` objects, type of `ctx.objects()`), if any. */
  readonly forType: ResourceType | undefined;
  /** The `for` type's store, or an empty store. */
  readonly forStore: Store<Cached<T>>;
  /** One per `for`, `owns` and `watches` entry, in that order. */
  readonly bindings: readonly Binding[];
  /** The `dynamicWatches` option with its binder, if given (followed by each run, docs/runtime-change.md). */
  readonly dynamic?: DynamicWatches;
  readonly concurrency: number;
  readonly cacheSyncTimeoutMs: number;
  readonly scheduler: SchedulerLike;
  /** The logger given (reconcile loggers derive from it). */
  readonly baseLogger: Logger;
  /** The controller's own logger (`controller: name`). */
  readonly logger: Logger;
  readonly recorder: EventRecorder;
  readonly client: KubeClient | undefined;
  readonly metrics: ControllerMetricsRecorder | undefined;
  /** The work queue's options, but for `shutdown` (each run's signal). */
  readonly queue: Omit<WorkQueueOptions, 'shutdown'>;
  /**
   * A multi-cluster controller's clusters, by name: each one's client and `for` store. With a
   * cluster stream, the clusters serving now (synced, not removed), kept by the run's fleet.
   */
  readonly clusters?: ReadonlyMap<string, ClusterParts<T>>;
  /** A multi-cluster controller over a changing fleet (`clusters` given as an Observable). */
  readonly clusterStream?: ClusterStream<T>;
  /** The logger event-mapping failures go to (follows `logger` when a manager injects one). */
  readonly eventLog: { current: Logger };
  /** Reconciles running longer than `stuckReconcileThresholdMs`. */
  readonly stuck: StuckReconciles;
  /** Read-your-writes of the writes through `ctx` (undefined: `readYourWrites: false`). */
  readonly readYourWrites: ReadYourWrites | undefined;
}

/** What a reconcile of a cluster reads and writes through: the cluster's client and `for` store. */
export interface ClusterParts<T extends KubeObject> {
  readonly client: KubeClient;
  readonly forStore: Store<Cached<T>>;
}

/** One cluster of a multi-cluster controller, bound: its parts and the bindings of its sources (requests tagged with it). */
export interface BoundCluster<T extends KubeObject> extends ClusterParts<T> {
  readonly bindings: readonly Binding[];
}

/** The cluster events of a multi-cluster controller over a changing fleet, and how a cluster is bound. */
export interface ClusterStream<T extends KubeObject> {
  readonly events$: Observable<ClusterEvent>;
  /**
   * Binds cluster `name` (its informers are created, not started).
   * @throws ControllerBuildError for a bad name or target.
   */
  readonly bind: (name: string, target: ClusterTarget) => BoundCluster<T>;
  /** The clusters serving now, by name: `def.clusters`, kept by the run's fleet. */
  readonly serving: Map<string, ClusterParts<T>>;
}

/** What a manager offers a controller (see `Runnable.inject`); each is used only when the options lack it. */
export interface InjectedParts {
  readonly logger?: Logger | undefined;
  readonly registry?: Registry | undefined;
  readonly client?: KubeClient | undefined;
  readonly recorder?: (() => EventRecorder) | undefined;
}

/** The logger, recorder, client and metrics of a controller: from its options, else injected, else defaults. */
export interface CrossCuttingParts {
  readonly baseLogger: Logger;
  readonly logger: Logger;
  readonly recorder: EventRecorder;
  readonly client: KubeClient | undefined;
  readonly metrics: ControllerMetricsRecorder | undefined;
  readonly queueMetrics: WorkQueueMetrics | undefined;
}

/** Resolves a controller's cross-cutting parts: what `options` give wins over what was `injected`. */
export function crossCuttingParts<T extends KubeObject>(options: ControllerOptions<T>, name: string, injected: InjectedParts = {}): CrossCuttingParts {
  const baseLogger = options.logger ?? injected.logger ?? noopLogger;
  const registry = options.metricsRegistry ?? injected.registry;
  return {
    baseLogger,
    logger: baseLogger.child({ controller: name }),
    recorder: options.recorder ?? injected.recorder?.() ?? noopEventRecorder,
    client: options.client ?? injected.client,
    metrics: options.metrics ?? (registry ? controllerMetrics(registry) : undefined),
    queueMetrics: options.workqueueMetrics ?? (registry ? workqueueMetrics(registry)(name) : undefined),
  };
}

/** `def` with the parts a manager injected, wherever its options left them out. */
export function withInjectedParts<T extends KubeObject>(
  def: ControllerDefinition<T>,
  options: ControllerOptions<T>,
  injected: InjectedParts,
): ControllerDefinition<T> {
  const parts = crossCuttingParts(options, def.name, injected);
  def.eventLog.current = parts.logger;
  const { queueMetrics, ...rest } = parts;
  return {
    ...def,
    ...rest,
    queue: { ...def.queue, ...(queueMetrics === undefined ? {} : { metrics: queueMetrics }) },
  };
}

/**
 * The key (`namespace/name`, or `name` for a cluster-scoped owner) of the controller owner of the
 * `owner` type of an object, if it has one.
 */
function controllerOwnerKey(owner: ResourceType): (object: KubeObject) => string | undefined {
  const group = splitApiVersion(owner.apiVersion).group;
  return (object) => {
    const ref = object.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (ref === undefined || ref.kind !== owner.kind || splitApiVersion(ref.apiVersion).group !== group) return undefined;
    return owner.namespaced === false ? ref.name : `${object.metadata?.namespace ?? ''}/${ref.name}`;
  };
}

/**
 * Checks `options` (CR-7), resolves and binds the sources and applies the defaults. Names are
 * unique per manager (checked by `Manager.add`), not per process.
 * @throws ControllerBuildError for an invalid definition.
 */
export function defineController<T extends KubeObject>(options: ControllerOptions<T>): ControllerDefinition<T> {
  if (options === null || typeof options !== 'object') throw new ControllerBuildError('controller needs options');
  // An option given here but read by no one would be dropped silently: e.g. the options of a
  // builder layered on controller() (shardedController's `sharding`) passed to controller() itself
  // would run every replica unsharded, each reconciling every object.
  const unknown = Object.keys(options).filter((k) => !OPTION_NAMES.has(k) && (options as unknown as Record<string, unknown>)[k] !== undefined);
  if (unknown.length > 0) {
    throw new ControllerBuildError(
      `controller${typeof options.name === 'string' ? ` ${options.name}` : ''}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (not an option of controller(); a typo, or an option of another builder such as shardedController)`,
      { option: unknown[0] as string },
    );
  }
  const stream$ = isObservable(options.clusters) ? options.clusters : undefined;
  const clusters = isObservable(options.clusters) ? undefined : clusterTargets(options.clusters, options.scheduler);
  const perCluster = clusters?.map((c) => ({ ...c, sources: resolveSources(options, c) }));
  // A changing fleet: the definition is checked against sources resolved through a probe factory
  // whose informers never run; each cluster is resolved for real when it joins.
  const sources =
    stream$ !== undefined
      ? resolveSources(options, { name: 'probe', informers: new InformerFactory(() => ({ list: () => NEVER, watch: () => NEVER })) })
      : perCluster === undefined
        ? resolveSources(options)
        : (perCluster[0] as { sources: ResolvedSources<T> }).sources;
  if (sources.owns.length > 0 && sources.for === undefined) throw new ControllerBuildError('owns can only be used together with for');
  const ownerType = sources.for?.source.resource;
  if (sources.owns.length > 0 && typeof ownerType?.namespaced !== 'boolean') {
    throw new ControllerBuildError(`owns needs the scope of the for type ${ownerType?.kind ?? ''}: give its resource type with namespaced`);
  }
  if (options.dynamicWatches !== undefined && clusters !== undefined) throw new ControllerBuildError('dynamicWatches cannot be combined with clusters');
  if (options.dynamicWatches !== undefined && !isObservable(options.dynamicWatches)) throw new ControllerBuildError('dynamicWatches must be an Observable of watch specs');
  if (sources.for === undefined && sources.watches.length === 0 && options.dynamicWatches === undefined) {
    throw new ControllerBuildError('there are no watches configured, controller will never get triggered. Use for or watches');
  }
  if (typeof options.reconcile !== 'function') throw new ControllerBuildError('must provide a reconcile function');
  const name = options.name ?? sources.for?.source.resource.kind.toLowerCase();
  if (name === undefined || name === '') throw new ControllerBuildError('one of for or name must be given');
  if (options.concurrency !== undefined && !Number.isInteger(options.concurrency)) {
    throw new ControllerBuildError(`concurrency must be an integer, got ${String(options.concurrency)}`);
  }
  if (options.cacheSyncTimeoutMs !== undefined && !(options.cacheSyncTimeoutMs >= 0)) {
    throw new ControllerBuildError(`cacheSyncTimeoutMs must be a number ≥ 0, got ${String(options.cacheSyncTimeoutMs)}`);
  }
  const cacheSyncTimeoutMs =
    options.cacheSyncTimeoutMs === undefined || options.cacheSyncTimeoutMs <= 0 ? DEFAULT_CACHE_SYNC_TIMEOUT_MS : options.cacheSyncTimeoutMs;
  const concurrency = options.concurrency === undefined || options.concurrency <= 0 ? 1 : options.concurrency;
  const scheduler = options.scheduler ?? asyncScheduler;
  const { baseLogger, logger, recorder, client, metrics, queueMetrics } = crossCuttingParts(options, name);
  const common = (options.predicates ?? []) as readonly EventPredicate[];
  const eventLog = { current: logger };
  const reportEventError = (err: unknown, event: InformerEvent): void => {
    eventLog.current.error('event dropped: a filter, predicate or request mapping threw', { err, event: event.type });
  };
  if (options.fieldManager !== undefined && (typeof options.fieldManager !== 'string' || options.fieldManager === '')) {
    throw new ControllerBuildError(`fieldManager must be a non-empty string, got ${String(options.fieldManager)}`);
  }
  if (options.stuckReconcileThresholdMs !== undefined && !(options.stuckReconcileThresholdMs >= 0)) {
    throw new ControllerBuildError(`stuckReconcileThresholdMs must be a number ≥ 0, got ${String(options.stuckReconcileThresholdMs)}`, { option: 'stuckReconcileThresholdMs' });
  }
  if (options.expectationsTtlMs !== undefined && !(options.expectationsTtlMs >= 0)) {
    throw new ControllerBuildError(`expectationsTtlMs must be a number ≥ 0, got ${String(options.expectationsTtlMs)}`);
  }
  // Expectations of the controller's own writes, lowered by the events of owned objects before
  // they are turned into requests (as kube-controller-manager's handlers do).
  const expectations = new ControllerExpectations({ scheduler, ...(options.expectationsTtlMs === undefined ? {} : { ttlMs: options.expectationsTtlMs }) });
  const ryw = readYourWritesSettings(options.readYourWrites);
  const readYourWrites = ryw === undefined ? undefined : new ReadYourWrites(name, scheduler, eventLog, ryw.timeoutMs, ryw.maxTrackedWrites);
  const watched = (b: Binding[], cluster?: string): Binding[] => (readYourWrites === undefined ? b : readYourWrites.watch(b, cluster));
  const owner = ownerType as ResourceType | undefined;
  const observed = (s: ResolvedSources<T>): ResolvedSources<T> =>
    owner === undefined || s.owns.length === 0
      ? s
      : { ...s, owns: s.owns.map((o) => ({ ...o, source: expectations.observe(o.source, controllerOwnerKey(owner)) })) };
  // Over clusters: each cluster's sources, their requests tagged with the cluster.
  const bindCluster = (name: string, s: ResolvedSources<T>): Binding[] =>
    watched(bindSources(observed(s), common, reportEventError), name).map((b) => inCluster(b, name));
  if (stream$ !== undefined) bindSources(sources, common, reportEventError); // checks the watches entries
  const bindings =
    stream$ !== undefined
      ? []
      : perCluster === undefined
        ? watched(bindSources(observed(sources), common, reportEventError))
        : perCluster.flatMap((c) => bindCluster(c.name, c.sources));
  const serving = new Map<string, ClusterParts<T>>();
  const clusterStream: ClusterStream<T> | undefined =
    stream$ === undefined
      ? undefined
      : {
          events$: stream$,
          serving,
          bind: (clusterName, target) => {
            const entry = clusterEntry(clusterName, target, options.scheduler);
            const resolved = resolveSources(options, entry);
            return { client: entry.client, forStore: cachedStore(resolved.for?.source.store), bindings: bindCluster(clusterName, resolved) };
          },
        };

  return {
    name,
    expectations,
    fieldManager: options.fieldManager ?? name,
    needLeaderElection: options.needLeaderElection ?? true,
    reconcile: (request, ctx) => options.reconcile(request, ctx),
    forType: sources.for?.source.resource,
    forStore: cachedStore(sources.for?.source.store),
    bindings,
    concurrency,
    cacheSyncTimeoutMs,
    scheduler,
    baseLogger,
    logger,
    recorder,
    client,
    metrics,
    eventLog,
    readYourWrites,
    ...(options.dynamicWatches === undefined
      ? {}
      : { dynamic: { specs$: options.dynamicWatches, bind: dynamicBinder(options.informers, common, reportEventError) } }),
    stuck: new StuckReconciles(name, options.stuckReconcileThresholdMs ?? DEFAULT_STUCK_RECONCILE_THRESHOLD_MS, scheduler),
    queue: {
      concurrency,
      scheduler,
      ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
      ...(options.reconcileTimeoutMs === undefined ? {} : { reconcileTimeoutMs: options.reconcileTimeoutMs }),
      ...(options.supersede === true ? { supersede: true } : {}),
      ...(options.shutdownGracePeriodMs === undefined ? {} : { shutdownGracePeriodMs: options.shutdownGracePeriodMs }),
      ...(queueMetrics === undefined ? {} : { metrics: queueMetrics }),
    },
    ...(clusterStream === undefined ? {} : { clusterStream, clusters: serving }),
    ...(perCluster === undefined
      ? {}
      : {
          clusters: new Map(
            perCluster.map((c) => [c.name, { client: c.client, forStore: cachedStore(c.sources.for?.source.store) }] as const),
          ),
        }),
  };
}

/**
 * A source's store as what it is, a cache of objects the API server named and versioned, or an
 * empty store without `for`.
 */
function cachedStore<T extends KubeObject>(store: Store<T> | undefined): Store<Cached<T>> {
  return (store ?? new Indexer<T>()) as Store<Cached<T>>;
}

interface ClusterEntry {
  readonly name: string;
  readonly client: KubeClient;
  readonly informers: InformerFactory;
}

/** The `clusters` option checked, each with its informer factory; `undefined` for a single-cluster controller. */
function clusterTargets(given: Readonly<Record<string, ClusterTarget>> | undefined, scheduler: SchedulerLike | undefined): ClusterEntry[] | undefined {
  if (given === undefined) return undefined;
  const names = Object.keys(given);
  if (names.length === 0) throw new ControllerBuildError('clusters must name at least one cluster');
  return names.map((name) => clusterEntry(name, given[name] as ClusterTarget, scheduler));
}

/**
 * One cluster checked, with its informer factory (a new one for a bare client).
 * @throws ControllerBuildError for a bad name or a target without a client.
 */
function clusterEntry(name: string, target: ClusterTarget, scheduler: SchedulerLike | undefined): ClusterEntry {
  if (typeof name !== 'string' || name === '' || name.includes('/') || name.includes(':')) {
    throw new ControllerBuildError(`cluster name must be non-empty without '/' or ':', got ${JSON.stringify(name)}`);
  }
  const client = target instanceof KubeClientBase ? target : target?.client;
  if (!(client instanceof KubeClientBase)) throw new ControllerBuildError(`cluster ${name}: needs a KubeClient (or { client, informers })`);
  const informers = target instanceof KubeClientBase ? undefined : target.informers;
  return { name, client, informers: informers ?? new InformerFactory(client, scheduler === undefined ? {} : { scheduler }) };
}

/** A binding whose requests carry `cluster`. */
function inCluster(binding: Binding, cluster: string): Binding {
  return {
    source: { resource: binding.source.resource, name: `${cluster}/${sourceName(binding.source)}`, store: binding.source.store, register: () => binding.source.register() },
    toRequests: (events$) =>
      events$.pipe(
        binding.toRequests,
        map((add): WorkQueueAdd => ({ ...add, request: { ...(typeof add.request === 'string' ? parseRequestKey(add.request) : add.request), cluster } })),
      ),
  };
}
