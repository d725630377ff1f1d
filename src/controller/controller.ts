import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import {
  asyncScheduler,
  BehaviorSubject,
  distinctUntilChanged,
  finalize,
  ignoreElements,
  first,
  isObservable,
  lastValueFrom,
  mergeMap,
  Observable,
  of,
  type OperatorFunction,
  type SchedulerLike,
  Subject,
  Subscription,
  tap,
} from 'rxjs';
import { filterTransitions } from '../informer/filter-transitions.js';
import { and, type EventPredicate } from '../informer/predicates.js';
import { workQueue, type ReconcileReturn, type Reconciler } from '../workqueue/work-queue.js';
import type { KubeObject, UnstructuredObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { Indexer } from '../cache/indexer.js';
import type { Store } from '../cache/store.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ObjectClient } from '../client/object-client.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { InformerFactory } from '../informer/informer-factory.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import { reconcileLogger } from '../logging/reconcile-logger.js';
import type { Runnable } from '../api/runnable.js';
import { controllerMetrics, type ControllerMetricsRecorder } from '../metrics/controller-metrics.js';
import { recordReconcileMetrics } from '../metrics/record-reconcile-metrics.js';
import { workqueueMetrics } from '../metrics/workqueue-metrics.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import type { ReconcileOutcome, ReconcileResult } from '../workqueue/reconcile-result.js';
import { requestKey, type Request, type WorkQueueAdd } from '../workqueue/request.js';
import {
  CacheSyncTimeoutError,
  ControllerBuildError,
  ControllerError,
  ControllerStartedTwiceError,
} from './controller-errors.js';
import { sourceName, type ControllerSource } from './controller-source.js';
import {
  mappedRequestsOf,
  objectRequestsOf,
  ownerRequestsOf,
  type RequestMapper,
} from './event-requests.js';
import { informerSource } from './informer-source.js';
import { noopEventRecorder } from './noop-event-recorder.js';
import type { ReconcileContext } from './reconcile-context.js';

/** `for` with its own predicates. */
export interface ForSpec<T extends KubeObject> {
  readonly source: ControllerSource<T> | ResourceType<T>;
  readonly predicates?: readonly EventPredicate<T>[];
  /**
   * Keeps only objects passing this test, with client-go's filtering-handler transitions (CT-3):
   * an update leaving the filter arrives as a delete of the old object, one entering it as an
   * add — so the mapping still sees objects that stopped matching. Applied before `predicates`.
   */
  readonly filter?: (object: T) => boolean;
}

/** An `owns` entry: events of owned objects enqueue their controller owner of the `for` type. */
export interface OwnsSpec {
  readonly source: ControllerSource | ResourceType;
  readonly predicates?: readonly EventPredicate[];
  /**
   * Keeps only objects passing this test, with client-go's filtering-handler transitions (CT-3):
   * an update leaving the filter arrives as a delete of the old object, one entering it as an
   * add — so the mapping still sees objects that stopped matching. Applied before `predicates`.
   */
  readonly filter?: (object: KubeObject) => boolean;
  /** Enqueue every owner of the `for` type, not only the controller owner. */
  readonly matchEveryOwner?: boolean;
}

/** A `watches` entry: events of any type mapped to requests by `map` (old and new object of updates). */
export interface WatchSpec<U extends KubeObject = KubeObject> {
  /** An informer source, or a resource type resolved through `informers`. */
  readonly source: ControllerSource<U> | ResourceType<U>;
  map(object: U): readonly (Request | string)[];
  readonly predicates?: readonly EventPredicate<U>[];
  /**
   * Keeps only objects passing this test, with client-go's filtering-handler transitions (CT-3):
   * an update leaving the filter arrives as a delete of the old object, one entering it as an
   * add — so the mapping still sees objects that stopped matching. Applied before `predicates`.
   */
  filter?(object: U): boolean;
}

/** The reconcile function of a controller. */
export type ControllerReconciler<T extends KubeObject> = (request: Request, ctx: ReconcileContext<T>) => ReconcileReturn;

/** Options of {@link controller}. Durations in ms. */
export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /** Unique per process (unless `skipNameValidation`); default the lower-case kind of `for`. */
  readonly name?: string;
  /** The reconciled type: each event enqueues the object's own key (CR-8). At most one. Types `ctx.object`. */
  readonly for?: ControllerSource<T> | ForSpec<T> | ResourceType<T>;
  /** Owned types: an event enqueues the owned object's controller owner of the `for` type (CR-9). Needs `for`. */
  readonly owns?: readonly (ControllerSource | OwnsSpec | ResourceType)[];
  /** Any type, mapped to requests by a function. */
  readonly watches?: readonly WatchSpec[];
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
  /** Per-reconcile deadline (CR-3); default none. */
  readonly reconcileTimeoutMs?: number;
  /** On stop, how long running reconciles may finish before being aborted; default 30 000. */
  readonly shutdownGracePeriodMs?: number;
  /** Start only while leading (default true). */
  readonly needLeaderElection?: boolean;
  /** Allow a name that another controller in this process already uses. */
  readonly skipNameValidation?: boolean;
  /** Client handed to reconciles (`ctx.client`, `ctx.objects()`). */
  readonly client?: KubeClient;
  /** Event recorder handed to reconciles; default a no-op recorder. */
  readonly recorder?: EventRecorder;
  readonly logger?: Logger;
  /** Records controller-runtime's controller and workqueue metrics here. */
  readonly metricsRegistry?: Registry;
  /** Or: a custom recorder for the controller metrics. */
  readonly metrics?: ControllerMetricsRecorder;
  /** Or: custom work-queue metric hooks. */
  readonly workqueueMetrics?: WorkQueueMetrics;
  /** Resolves resource types given as `for` / `owns` / `watches` to shared informers. */
  readonly informers?: InformerFactory;
  /** Timers and clock; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** A built controller: a manager runnable, or run alone with {@link Controller.run}. */
export interface Controller<T extends KubeObject = KubeObject> extends Runnable {
  readonly name: string;
  readonly needLeaderElection: boolean;
  /** The `for` type's store (or an empty store). */
  readonly store: Store<T>;
  /**
   * Runs until `signal` aborts, then stops gracefully. Rejects with {@link CacheSyncTimeoutError}
   * when the caches do not sync in time, {@link ControllerStartedTwiceError} on a second start.
   */
  start(signal: AbortSignal): Promise<void>;
  /**
   * `true` while the workers run (every cache synced, CR-5), `false` before and after. Replays the
   * current value. (Named `ready$`, not `synced$`: the manager would take it for a cache.)
   */
  readonly ready$: Observable<boolean>;
  /** A readiness check for the manager (`mgr.addReadyzCheck(name, c.readyCheck)`): throws until the workers run. */
  readyCheck(): void;
  /**
   * The controller as a stream of reconcile outcomes. Subscribing starts it (once per
   * controller); `signal` (or unsubscribing, abruptly) stops it.
   */
  run(signal?: AbortSignal): Observable<ReconcileOutcome>;
}

interface Binding {
  readonly source: ControllerSource;
  readonly toRequests: OperatorFunction<InformerEvent, WorkQueueAdd>;
}

const usedNames = new Set<string>();

/**
 * Builds a controller (controller-runtime's builder, CR-4..CR-9): `for` / `owns` / `watches`
 * sources are turned into requests, filtered by predicates, queued by the {@link workQueue}
 * operator and reconciled by `reconcile(request, ctx)`. The controller registers a handler on
 * every source at start, queues requests from the initial lists (at low priority, PQ-2), and
 * reconciles only once every registration has synced (CR-5), failing after `cacheSyncTimeout`.
 *
 * Sources are informers (through an `informers` factory, or {@link informerSource}) or any
 * {@link ControllerSource} (e.g. `fakeSource` in tests). Events that arrive while the caches sync
 * coalesce per key; after that, every request goes through the queue (one reconcile per key at a
 * time, rate-limited retries, `requeueAfter`). Each reconcile gets a {@link ReconcileContext}:
 * the cached object, listers, a typed client, a logger with a reconcile id, an event recorder and
 * the AbortSignal.
 *
 * ```ts
 * const factory = new InformerFactory(client, { namespace: 'default' });
 * const c = controller({
 *   for: WIDGETS,                                   // a ResourceType<Widget>: resolved through `informers`
 *   owns: [resources.configMaps],                   // events of owned objects reconcile the owner
 *   watches: [{ source: resources.secrets, map: (s) => [s.metadata?.labels?.['widget'] ?? ''] }],
 *   predicates: [generationChanged()],
 *   informers: factory, client,
 *   reconcile: async (req, ctx) => {
 *     const widget = ctx.object;                    // a Widget from the cache; undefined when deleted
 *     if (widget === undefined) return;
 *     await ensureConfigMap(ctx.objects(resources.configMaps, req.namespace), widget);
 *     return { requeueAfter: 60_000 };
 *   },
 * });
 * mgr.add(factory.runnable()); mgr.add(c);          // after controller(): the factory knows its informers
 * // or alone: await c.start(signal), or c.run(signal).subscribe((outcome) => …)
 * ```
 * @throws ControllerBuildError for an invalid definition (CR-7).
 */
export function controller<T extends KubeObject = KubeObject>(options: ControllerOptions<T>): Controller<T> {
  if (options === null || typeof options !== 'object') throw new ControllerBuildError('controller needs options');
  if (Array.isArray(options.for)) {
    if (options.for.length > 1) throw new ControllerBuildError('for should only be given once; use watches for other types');
  }
  const resolve = (x: unknown): unknown => {
    if (isSource(x) || !isResourceLike(x)) return x;
    if (options.informers === undefined) {
      throw new ControllerBuildError(`${x.kind}: a resource needs options.informers (an InformerFactory); or pass a source`);
    }
    return informerSource(options.informers.for(x), x);
  };
  const forSpec = normalizeFor(resolveSpec(Array.isArray(options.for) ? (options.for as unknown[])[0] : options.for, resolve)) as
    | Bound<ForSpec<T>, T>
    | undefined;
  const owns = (options.owns ?? []).map((o) => normalizeOwns(resolveSpec(o, resolve)));
  const watches = (options.watches ?? []).map((w) => resolveSpec(w, resolve) as Bound<WatchSpec>);
  if (owns.length > 0 && forSpec === undefined) throw new ControllerBuildError('owns can only be used together with for');
  if (forSpec === undefined && watches.length === 0) {
    throw new ControllerBuildError('there are no watches configured, controller will never get triggered. Use for or watches');
  }
  if (typeof options.reconcile !== 'function') throw new ControllerBuildError('must provide a reconcile function');
  const name = options.name ?? forSpec?.source.resource.kind.toLowerCase();
  if (name === undefined || name === '') throw new ControllerBuildError('one of for or name must be given');
  if (options.skipNameValidation !== true && usedNames.has(name)) {
    throw new ControllerBuildError(
      `controller with name ${name} already exists. Controller names must be unique to avoid multiple controllers reporting to the same metric`,
    );
  }
  if (options.concurrency !== undefined && !Number.isInteger(options.concurrency)) {
    throw new ControllerBuildError(`concurrency must be an integer, got ${String(options.concurrency)}`);
  }
  if (options.cacheSyncTimeoutMs !== undefined && !(options.cacheSyncTimeoutMs >= 0)) {
    throw new ControllerBuildError(`cacheSyncTimeoutMs must be a number ≥ 0, got ${String(options.cacheSyncTimeoutMs)}`);
  }
  const cacheSyncTimeout = options.cacheSyncTimeoutMs === undefined || options.cacheSyncTimeoutMs <= 0 ? 120_000 : options.cacheSyncTimeoutMs;
  const concurrency = options.concurrency === undefined || options.concurrency <= 0 ? 1 : options.concurrency;
  const scheduler = options.scheduler ?? asyncScheduler;
  const logger = (options.logger ?? noopLogger).child({ controller: name });
  const recorder = options.recorder ?? noopEventRecorder;
  const metrics = options.metrics ?? (options.metricsRegistry ? controllerMetrics(options.metricsRegistry) : undefined);
  const queueMetrics = options.workqueueMetrics ?? (options.metricsRegistry ? workqueueMetrics(options.metricsRegistry)(name) : undefined);
  const common = (options.predicates ?? []) as readonly EventPredicate[];

  const reportEventError = (err: unknown, event: InformerEvent): void => {
    logger.error('event dropped: a filter, predicate or request mapping threw', { err, event: event.type });
  };
  const bindings: Binding[] = [];
  const ownerType: ResourceType | undefined = forSpec?.source.resource;
  if (owns.length > 0 && typeof ownerType?.namespaced !== 'boolean') {
    throw new ControllerBuildError(`owns needs the scope of the for type ${ownerType?.kind ?? ''}: give its resource type with namespaced`);
  }
  if (forSpec !== undefined) {
    bindings.push({
      source: forSpec.source as unknown as ControllerSource,
      toRequests: withPredicates(
        forSpec.filter as ((o: KubeObject) => boolean) | undefined,
        [...common, ...((forSpec.predicates ?? []) as readonly EventPredicate[])],
        objectRequestsOf,
        reportEventError,
      ),
    });
  }
  for (const o of owns) {
    const owner = ownerType as ResourceType & { readonly namespaced: boolean };
    bindings.push({
      source: o.source,
      toRequests: withPredicates(o.filter, [...common, ...(o.predicates ?? [])], (e) =>
        ownerRequestsOf(e, owner, { matchEveryOwner: o.matchEveryOwner === true }),
      reportEventError,
      ),
    });
  }
  for (const w of watches) {
    if (w === null || typeof w !== 'object' || typeof w.map !== 'function' || !isSource(w.source)) {
      throw new ControllerBuildError('each watches entry needs a source and a map function');
    }
    const map: RequestMapper = (o) => w.map(o);
    bindings.push({
      source: w.source,
      toRequests: withPredicates(
        w.filter === undefined ? undefined : (o) => (w.filter as (o: KubeObject) => boolean)(o),
        [...common, ...(w.predicates ?? [])],
        (e) => mappedRequestsOf(e, map),
        reportEventError,
      ),
    });
  }

  if (options.skipNameValidation !== true) usedNames.add(name);
  const forStore: Store<T> = forSpec?.source.store ?? new Indexer<T>();
  let started = false;
  const ready = new BehaviorSubject(false);

  const contextFor = (request: Request, signal: AbortSignal): ReconcileContext<T> => {
    const reconcileId = randomUUID();
    const client = options.client;
    function objects(): ObjectClient<T>;
    function objects<U extends KubeObject = UnstructuredObject>(ref: ResourceType<U>, namespace?: string): ObjectClient<U>;
    function objects(ref?: ResourceType, namespace?: string): ObjectClient<KubeObject> {
      if (client === undefined) throw new ControllerError(`controller ${name} has no client: pass options.client`);
      if (ref === undefined) {
        if (ownerType === undefined) throw new ControllerError(`controller ${name} has no for type: pass a resource to objects()`);
        return client.objects(ownerType, ownerType.namespaced === false ? undefined : request.namespace);
      }
      return client.objects(ref, namespace);
    }
    return {
      request,
      signal,
      reconcileId,
      logger: reconcileLogger(options.logger ?? noopLogger, name, request, reconcileId),
      object: forStore.get(request.namespace ? `${request.namespace}/${request.name}` : request.name),
      store: forStore,
      storeOf: (source) => source.store,
      recorder,
      client,
      objects,
    };
  };

  const reconcileStep: Reconciler = (request, signal) => {
    const ctx = contextFor(request, signal);
    metrics?.workerStarted(name);
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      metrics?.workerStopped(name);
    };
    let ret: ReconcileReturn;
    try {
      ret = options.reconcile(request, ctx);
    } catch (error) {
      stop();
      throw error;
    }
    if (isObservable(ret)) return ret.pipe(finalize(stop));
    if (ret !== null && typeof ret === 'object' && typeof (ret as PromiseLike<unknown>).then === 'function') {
      return Promise.resolve(ret as PromiseLike<ReconcileResult | void | undefined>).finally(stop);
    }
    stop();
    return ret;
  };

  const run = (signal?: AbortSignal): Observable<ReconcileOutcome> =>
    new Observable<ReconcileOutcome>((subscriber) => {
      if (started) {
        subscriber.error(new ControllerStartedTwiceError(name));
        return;
      }
      started = true;
      const subs = new Subscription();
      const live = new Subject<WorkQueueAdd>();
      let buffer: WorkQueueAdd[] | null = [];
      const push = (add: WorkQueueAdd): void => {
        if (buffer !== null) buffer.push(add);
        else live.next(add);
      };
      const fail = (error: unknown): void => subscriber.error(error);

      // Register every handler first, so the initial lists are queued while the caches sync.
      const registrations = bindings.map((b) => ({ binding: b, registration: b.source.register() }));
      for (const { binding, registration } of registrations) {
        subs.add(registration.events$.pipe(binding.toRequests).subscribe({ next: push, error: fail }));
      }

      const startQueue = (): void => {
        logger.info('Starting workers', { workerCount: concurrency });
        ready.next(true);
        const requests$ = new Observable<WorkQueueAdd>((s) => {
          const sub = live.subscribe(s);
          // Requests queued while the caches synced coalesce per key (highest priority wins), as
          // they would in the queue: a fast reconcile must not finish a key before its duplicate
          // from another source's initial list arrives and runs it again.
          const pending = buffer ?? [];
          while (pending.length > 0) {
            const batch = coalesce(pending.splice(0));
            for (const add of batch) s.next(add);
          }
          buffer = null;
          return sub;
        });
        let outcomes$ = requests$.pipe(
          workQueue(reconcileStep, {
            concurrency,
            scheduler,
            ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
            ...(options.reconcileTimeoutMs === undefined ? {} : { reconcileTimeoutMs: options.reconcileTimeoutMs }),
            ...(options.shutdownGracePeriodMs === undefined ? {} : { shutdownGracePeriodMs: options.shutdownGracePeriodMs }),
            ...(signal === undefined ? {} : { shutdown: signal }),
            ...(queueMetrics === undefined ? {} : { metrics: queueMetrics }),
          }),
          tap((o) => {
            if (o.kind === 'error' || o.kind === 'terminal_error') {
              logger.error('Reconciler error', { object: o.key, err: o.error, terminal: o.kind === 'terminal_error' });
            }
          }),
        );
        if (metrics !== undefined) outcomes$ = outcomes$.pipe(recordReconcileMetrics(metrics, name, concurrency));
        subs.add(outcomes$.subscribe(subscriber));
      };

      // CR-5: wait for every registration to sync, bounded by cacheSyncTimeout.
      const pendingSync = new Set(registrations.map((_, i) => i));
      let syncTimer: Subscription | undefined;
      let onAbort: (() => void) | undefined;
      const cancelWait = (): void => {
        syncTimer?.unsubscribe();
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      };
      registrations.forEach(({ registration }, i) => {
        subs.add(
          registration.synced$.pipe(first((v) => v === true)).subscribe({
            next: () => {
              pendingSync.delete(i);
              if (pendingSync.size === 0 && !subscriber.closed) {
                cancelWait();
                startQueue();
              }
            },
            error: fail,
            complete: () => undefined,
          }),
        );
      });
      if (pendingSync.size > 0 && !subscriber.closed) {
        logger.info('Waiting for caches to sync', { sources: registrations.map((r) => sourceName(r.binding.source)) });
        syncTimer = scheduler.schedule(() => {
          const names = [...pendingSync].map((i) => sourceName((registrations[i] as (typeof registrations)[number]).binding.source));
          subscriber.error(new CacheSyncTimeoutError(name, names, cacheSyncTimeout));
        }, cacheSyncTimeout);
        if (signal !== undefined) {
          onAbort = () => {
            if (pendingSync.size > 0) subscriber.complete(); // stopping before sync is not an error
          };
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }
      }
      return () => {
        ready.next(false);
        cancelWait();
        subs.unsubscribe();
        live.complete();
      };
    });

  return {
    name,
    needLeaderElection: options.needLeaderElection ?? true,
    store: forStore,
    ready$: ready.pipe(distinctUntilChanged()),
    readyCheck: () => {
      if (!ready.value) throw new ControllerError(`controller ${name} is not running (caches not synced or stopped)`);
    },
    run,
    start: (signal: AbortSignal) => lastValueFrom(run(signal).pipe(ignoreElements()), { defaultValue: undefined }),
  };
}

function coalesce(adds: readonly WorkQueueAdd[]): WorkQueueAdd[] {
  const byKey = new Map<string, WorkQueueAdd>();
  for (const add of adds) {
    const key = typeof add.request === 'string' ? add.request : requestKey(add.request);
    const seen = byKey.get(key);
    if (seen === undefined || (add.priority ?? 0) > (seen.priority ?? 0)) byKey.set(key, add);
  }
  return [...byKey.values()];
}

function withPredicates(
  filter: ((object: KubeObject) => boolean) | undefined,
  predicates: readonly EventPredicate[],
  toAdds: (event: InformerEvent) => WorkQueueAdd[],
  onError: (error: unknown, event: InformerEvent) => void,
): OperatorFunction<InformerEvent, WorkQueueAdd> {
  const filtered = filter === undefined ? undefined : filterTransitions(filter);
  const passes = predicates.length === 0 ? undefined : and(...predicates);
  // A throwing filter, predicate or mapping drops that one event (reported), not the controller.
  return mergeMap((event: InformerEvent): WorkQueueAdd[] => {
    try {
      let events: InformerEvent[] = [event];
      if (filtered !== undefined) {
        events = [];
        let failure: { error: unknown } | undefined;
        of(event)
          .pipe(filtered)
          .subscribe({ next: (e) => events.push(e), error: (error: unknown) => (failure = { error }) });
        if (failure !== undefined) throw failure.error;
      }
      const out: WorkQueueAdd[] = [];
      for (const e of events) if (passes === undefined || passes(e)) out.push(...toAdds(e));
      return out;
    } catch (error) {
      onError(error, event);
      return [];
    }
  });
}

function isResourceLike(x: unknown): x is ResourceType {
  const r = x as ResourceType;
  return x !== null && typeof x === 'object' && typeof r.apiVersion === 'string' && typeof r.kind === 'string' && typeof r.namespaced === 'boolean';
}

/** Replaces a resource (or `{ source: resource }`) by an informer source. */
function resolveSpec(x: unknown, resolve: (x: unknown) => unknown): unknown {
  if (x === null || typeof x !== 'object') return x;
  if (isResourceLike(x) && !isSource(x)) return resolve(x);
  const spec = x as { source?: unknown };
  if ('source' in spec && isResourceLike(spec.source) && !isSource(spec.source)) return { ...spec, source: resolve(spec.source) };
  return x;
}

function isSource(x: unknown): x is ControllerSource {
  return (
    x !== null &&
    typeof x === 'object' &&
    typeof (x as ControllerSource).register === 'function' &&
    typeof (x as ControllerSource).resource === 'object'
  );
}

/** A spec whose source was resolved. */
type Bound<S, U extends KubeObject = KubeObject> = Omit<S, 'source'> & { readonly source: ControllerSource<U> };

function normalizeFor(x: unknown): Bound<ForSpec<KubeObject>> | undefined {
  if (x === undefined || x === null) return undefined;
  if (isSource(x)) return { source: x };
  const spec = x as Bound<ForSpec<KubeObject>>;
  if (typeof spec === 'object' && isSource(spec.source)) return spec;
  throw new ControllerBuildError('for must be a source (an informer) or { source, predicates }');
}

function normalizeOwns(x: unknown): Bound<OwnsSpec> {
  if (isSource(x)) return { source: x };
  const spec = x as Bound<OwnsSpec>;
  if (spec !== null && typeof spec === 'object' && isSource(spec.source)) return spec;
  throw new ControllerBuildError('each owns entry must be a source (an informer) or { source, predicates }');
}
