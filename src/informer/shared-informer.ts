import {
  AsyncSubject,
  BehaviorSubject,
  EMPTY,
  NEVER,
  Observable,
  type SchedulerLike,
  Subject,
  asyncScheduler,
  defer,
  distinctUntilChanged,
  filter,
  finalize,
  firstValueFrom,
  isObservable,
  map,
  merge,
  race,
  share,
  takeUntil,
  tap,
  timer,
} from 'rxjs';
import { deltaFifo } from '../cache/delta-fifo.js';
import type { KubeObject } from '../api/kube-object.js';
import { applyDeltas, type StoreChange } from '../cache/apply-deltas.js';
import type { CacheError } from '../cache/errors.js';
import type { FifoInput } from '../cache/fifo-op.js';
import type { FreezeMode } from '../cache/freeze-object.js';
import { Indexer, type NAMESPACE_INDEX } from '../cache/indexer.js';
import { type InformerEvent, isResyncUpdate, toInformerEvent } from '../cache/informer-event.js';
import type { IndexFunc, Indexers, Store } from '../cache/store.js';
import type { ListWatchScope } from '../client/http-list-watcher.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ResourceType } from '../api/resource.js';
import type { ListWatchOptions } from '../reflector/list-watch-options.js';
import type { ListWatcher } from '../api/list-watcher.js';
import { type Reflector, reflector } from '../reflector/reflector.js';
import type { ReflectorEvent } from '../reflector/reflector-event.js';
import type { ReflectorStatus } from '../reflector/reflector-status.js';
import { dropManagedFields } from './drop-managed-fields.js';
import { InformerConfigError, InformerSourceError } from './informer-errors.js';
import { ListWatchError } from './list-watch-error.js';
import { Listener, type ListenerOptions, type ProcessListenerOptions } from './informer-listener.js';
import { clampResyncPeriod, determineResyncPeriod } from './resync-period.js';
import { type CacheSnapshot, informerState } from './state.js';
import { declareIndex, type IndexHandle, indexHandle } from './typed-index.js';

/**
 * Where an informer's events come from:
 * - any `Observable<ReflectorEvent>` (tests, custom sources), cold: subscribed when the informer starts;
 * - a {@link Reflector} (`{ events$, status$ }`), whose status becomes the informer's `status$`;
 * - a `ListWatcher` transport (`{ listWatcher, listWatch? }`), run through `reflector()`;
 * - a resource of a client (`{ client, resource, scope?, listWatch? }`).
 */
export type InformerSource<T extends KubeObject = KubeObject> =
  | Observable<ReflectorEvent<T>>
  | Reflector<T>
  | { readonly listWatcher: ListWatcher<T>; readonly listWatch?: ListWatchOptions }
  | {
      readonly client: KubeClient;
      readonly resource: ResourceType<T>;
      readonly scope?: ListWatchScope;
      readonly listWatch?: ListWatchOptions;
    };

/** Options of {@link sharedInformer}. Durations in ms. */
export interface SharedInformerOptions<T extends KubeObject = KubeObject> {
  /** Name in errors and logs. Default: the resource's kind for a `{ client, resource }` source, else `informer`. */
  readonly name?: string;
  /** The resource type served (the informer's `resource`). Default: a `{ client, resource }` source's. */
  readonly resource?: ResourceType<T>;
  /** Index functions of the cache (more can be added with `withIndex` or `addIndexers`, before or after start). */
  readonly indexers?: Indexers<T>;
  /**
   * Applied to every object before it is cached (DF-7); must not mutate its input. Default
   * {@link dropManagedFields}; `null` disables.
   */
  readonly transform?: ((object: T) => T) | null;
  /** How cached objects are frozen. Default `'deep'`: no mutable reference into the cache is handed out. */
  readonly freeze?: FreezeMode;
  /**
   * SI-1: the resync period of subscribers that do not set one, and the informer's initial resync
   * check period. Default 0: no resync (unless a subscriber that asks for one joins before start, SI-8).
   */
  readonly defaultResyncPeriodMs?: number;
  /** How long the list/watch keeps running after the last subscriber left. Default 0. */
  readonly stopGraceMs?: number;
  /**
   * Whether a relist delivers an `update` for objects whose resourceVersion did not change.
   * Default `false`: a relist notifies only what changed (periodic resync, `defaultResyncPeriodMs`
   * or a subscriber's `resyncPeriodMs`, is the way to be handed every object again). `true` is
   * client-go's behaviour: every relisted object that was cached comes as an `update` marked
   * `resync` (equal resourceVersions).
   */
  readonly relistUnchanged?: boolean;
  /** Scheduler of the resync timer, the stop grace, `waitForSync`'s timeout and `state$`'s batching. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** How long `state$` gathers changes into one snapshot, in ms. Default 0: one snapshot per scheduler tick. */
  readonly stateBatchMs?: number;
}

/** A subscriber registration: its notifications and its own sync state (SI-11). */
export interface InformerListener<R> {
  /**
   * The notifications; subscribing registers the listener (a late one first gets the cache as
   * initial adds, SI-10), unsubscribing removes it. Shared: concurrent subscribers of one
   * `events$` share one registration; a new subscription after all left is a new registration.
   */
  readonly events$: Observable<R>;
  /** `false`, then `true` once the informer synced and this registration's initial adds were handled (SI-11). */
  readonly synced$: Observable<boolean>;
  hasSynced(): boolean;
}

/**
 * A shared informer: one list/watch and one cache for any number of subscribers. `I` names the
 * indexes declared with {@link SharedInformer.withIndex}, so `by(name)` only accepts those (and the
 * built-in `namespace` index).
 */
export interface SharedInformer<T extends KubeObject = KubeObject, I extends string = never> {
  readonly name: string;
  /** The resource type it serves, when known (always for an `InformerFactory`'s informers): `informerSource(informer)` reads it. */
  readonly resource?: ResourceType<T>;
  /** The cache (read-only view, with indexes). */
  readonly store: Store<T>;
  /** `true` once the initial list has been cached; `false` while stopped. Replays the current value. */
  readonly synced$: Observable<boolean>;
  hasSynced(): boolean;
  /** Resolves `true` once synced, `false` after `timeoutMs` (default: never times out). Does not start the informer. */
  waitForSync(timeoutMs?: number): Promise<boolean>;
  /** Resource version of the last list, event or bookmark seen; `''` before start. */
  readonly lastSyncResourceVersion: string;
  /**
   * Everything that goes wrong, as it happens (hot): failed lists and watches the reflector
   * retries by itself ({@link ListWatchError}), cache input errors, subscriber failures
   * (`ListenerError`) and the source's end ({@link InformerSourceError}).
   */
  readonly errors$: Observable<Error>;
  /** The reflector's status (hot; never emits for a plain Observable source). */
  readonly status$: Observable<ReflectorStatus>;
  /** Whether the list/watch is running. */
  readonly isRunning: boolean;
  /** The resync check period in use (ms); fixed while running. */
  readonly resyncCheckPeriodMs: number;
  /** Shortcut: every subscription is a new registration with default options. */
  readonly events$: Observable<InformerEvent<T>>;
  /**
   * The whole cache as a value: an immutable snapshot (`ReadonlyMap<key, T>`) once synced, then a
   * new one after each batch of changes (see `informerState`). Shared, replays the latest snapshot;
   * subscribing keeps the informer running. `combineLatest([pods.state$, nodes.state$])` is the
   * whole-table idiom.
   */
  readonly state$: Observable<CacheSnapshot<T>>;
  /** Keeps the informer running while subscribed, without receiving notifications (emits nothing). */
  readonly run$: Observable<never>;
  /** Registers a subscriber with options. */
  listen(options?: ListenerOptions<T>): InformerListener<InformerEvent<T>>;
  listen<R>(options: ProcessListenerOptions<T, R>): InformerListener<R>;
  /**
   * Adds index functions. Before start they are registered; after start the cached objects are
   * indexed at once (back-fill). A name that already exists throws `IndexerConflictError`.
   */
  addIndexers(indexers: Indexers<T>): void;
  /**
   * Declares index `name` and returns this informer typed with it (declare once, then use
   * `by(name)`). Works before or after start (back-fills the cache). Declaring the same name with
   * the same function again is a no-op, so independent composition steps may each declare what
   * they need; with another function it throws `IndexerConflictError`.
   */
  withIndex<N extends string>(name: N, fn: IndexFunc<T>): SharedInformer<T, I | N>;
  /** The handle of a declared index (a misspelt name does not compile). */
  by<N extends I | typeof NAMESPACE_INDEX>(name: N): IndexHandle<T, N>;
  /** Backlog sizes (events waiting) of the current registrations, by name. */
  backlogs(): ReadonlyMap<string, number>;
  /** Effective resync periods (SI-7) of the current registrations, by name. */
  resyncPeriods(): ReadonlyMap<string, number>;
}

function checkPeriod(value: number | undefined, what: string): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0))
    throw new InformerConfigError(`${what} must be a finite number >= 0, got ${value}`, { option: what });
}

function toEvents<T extends KubeObject>(
  source: InformerSource<T>,
  scheduler: SchedulerLike,
): { events$: Observable<ReflectorEvent<T>>; status$: Observable<ReflectorStatus> } {
  if (isObservable(source)) return { events$: source, status$: NEVER };
  if ('events$' in source) return source;
  const opts = (o: ListWatchOptions | undefined): ListWatchOptions => ({ scheduler, ...o });
  if ('listWatcher' in source) return reflector(source.listWatcher, opts(source.listWatch));
  return reflector(source.client.listWatcher<T>(source.resource, source.scope ?? {}), opts(source.listWatch));
}

function resourceVersionOf<T extends KubeObject>(event: ReflectorEvent<T>): string | undefined {
  if (event.type === 'replace' || event.type === 'bookmark') return event.resourceVersion;
  // Malformed objects (null, no metadata) are the cache's to report (KeyError on errors$); reading
  // their version must not fail the whole informer.
  const object: unknown = event.object;
  const rv: unknown = typeof object === 'object' && object !== null ? (object as KubeObject).metadata?.resourceVersion : undefined;
  return typeof rv === 'string' ? rv : undefined;
}

/**
 * A shared informer (docs/semantics.md §4): reflector → `deltaFifo` → cache (`Indexer`) → per-subscriber
 * notifications. The list/watch starts with the first subscriber and stops `stopGraceMs` after the
 * last one left (a quick resubscribe does not relist); the cache stays readable while stopped and
 * is reconciled by the next relist.
 *
 * Each subscriber has its own backlog, coalesced per key (bounded by the number of keys), so a
 * slow subscriber never delays the cache or other subscribers; a failing `process` step ends that
 * subscriber alone. Cached objects are frozen.
 *
 * ```
 * source:      -r---a-----m----|      r: replace [x], a: added y, m: modified x
 * subscriber1: ^-x---y-----x'---|     x: add x (initial), y: add y, x': update x
 * subscriber2:        ^x-y-x'---|     late: x, y replayed as initial adds, then live
 * ```
 *
 * @example
 * ```ts
 * const pods = sharedInformer({ client, resource: resources.pods },   // SharedInformer<K8s.Pod>
 *   { indexers: { byNode: (p) => [p.spec?.nodeName ?? ''] } });
 * const sub = pods.events$.subscribe((e) => console.log(e.type, e.object));
 * await pods.waitForSync(30_000);
 * pods.store.byIndex('byNode', 'node-1');
 * ```
 */
export function sharedInformer<T extends KubeObject = KubeObject>(
  source: InformerSource<T>,
  options: SharedInformerOptions<T> = {},
): SharedInformer<T> {
  checkPeriod(options.defaultResyncPeriodMs, 'defaultResyncPeriodMs');
  checkPeriod(options.stopGraceMs, 'stopGraceMs');
  const name =
    options.name ?? (!isObservable(source) && 'resource' in source ? source.resource.kind : 'informer');
  const resource = options.resource ?? (!isObservable(source) && 'resource' in source ? source.resource : undefined);
  const scheduler = options.scheduler ?? asyncScheduler;
  const grace = options.stopGraceMs ?? 0;
  const transform = options.transform === null ? undefined : (options.transform ?? dropManagedFields);
  const defaultPeriod = clampResyncPeriod(options.defaultResyncPeriodMs ?? 0);
  const indexer = new Indexer<T>({ indexers: options.indexers ?? {}, freeze: options.freeze ?? 'deep' });
  const { events$: reflectorEvents$, status$ } = toEvents(source, scheduler);

  const synced = new BehaviorSubject(false);
  const errors = new Subject<Error>();
  let resyncCheckPeriodMs = defaultPeriod;
  let running = false;
  let lastRV = '';
  let listeners: readonly Listener<T, unknown>[] = [];
  let counter = 0;

  const host = {
    informerSynced: () => synced.value,
    reportError: (e: Error) => errors.next(e),
  };
  const onCacheError = (e: CacheError): void => errors.next(e);

  const relistUnchanged = options.relistUnchanged ?? false;

  const distribute = (key: string, event: InformerEvent<T>): void => {
    for (const l of listeners) {
      if (event.type === 'update' && event.resync && !l.syncing) continue;
      l.offer(key, event);
    }
  };

  /** SI-9, called on every resync check tick. */
  const shouldResync = (): boolean => {
    const now = scheduler.now();
    let any = false;
    for (const l of listeners) {
      const due = l.effectivePeriodMs !== 0 && now >= l.nextResyncAt;
      l.syncing = due;
      if (due) {
        l.nextResyncAt = now + l.effectivePeriodMs;
        any = true;
      }
    }
    return any;
  };

  const core$ = defer(() => {
    running = true;
    // status$ is hot: subscribed before the source, so the first failed list is not missed.
    const listWatchErrors = status$.subscribe((st) => {
      if (st.type === 'error') errors.next(new ListWatchError(name, st.action, st.error));
    });
    const check = resyncCheckPeriodMs;
    const sourceDone = new AsyncSubject<void>();
    const resync$: Observable<FifoInput<T>> =
      check > 0
        ? timer(check, check, scheduler).pipe(
            filter(() => shouldResync()),
            map(() => ({ type: 'resync' }) as const),
            takeUntil(sourceDone),
          )
        : EMPTY;
    const input$ = merge(
      reflectorEvents$.pipe(
        tap((e) => {
          const rv = resourceVersionOf(e);
          if (rv !== undefined && rv !== '') lastRV = rv;
        }),
        finalize(() => {
          sourceDone.next();
          sourceDone.complete();
        }),
      ),
      resync$,
    );
    return input$.pipe(
      deltaFifo<T, never>({
        knownObjects: indexer,
        emitDeltaTypeReplaced: true,
        ...(transform === undefined ? {} : { transform }),
        onError: onCacheError,
        onSynced: () => {
          synced.next(true);
          for (const l of listeners) l.checkSynced();
        },
        process: (popped) => {
          applyDeltas(indexer, popped, onCacheError, (change) => {
            if (!relistUnchanged && isUnchangedByRelist(change)) return;
            distribute(change.key, toInformerEvent(change));
          });
          return [];
        },
      }),
      tap({
        error: (err: unknown) => errors.next(new InformerSourceError(name, err)),
      }),
      finalize(() => {
        listWatchErrors.unsubscribe();
        running = false;
        if (synced.value) synced.next(false);
      }),
    );
  }).pipe(
    share<never>({
      resetOnError: true,
      resetOnComplete: true,
      resetOnRefCountZero: grace > 0 ? () => timer(grace, scheduler) : true,
    }),
  );

  const register = <R>(opts: Partial<ProcessListenerOptions<T, R>>): InformerListener<R | InformerEvent<T>> => {
    checkPeriod(opts.resyncPeriodMs, 'resyncPeriodMs');
    const syncedOut = new BehaviorSubject(false);
    const listenerName = opts.name ?? `${name}/listener-${++counter}`;
    const events$ = new Observable<R | InformerEvent<T>>((subscriber) => {
      const requested = clampResyncPeriod(opts.resyncPeriodMs ?? defaultPeriod);
      const l = new Listener<T, R>(listenerName, subscriber, host, opts.filter, opts.process, requested);
      // SI-8: before start, a shorter period lowers the check period for everyone (a check period
      // of 0 stays 0: an informer created without resync never resyncs).
      if (!running && requested > 0 && requested < resyncCheckPeriodMs) {
        resyncCheckPeriodMs = requested;
        for (const other of listeners) other.effectivePeriodMs = determineResyncPeriod(other.requestedPeriodMs, requested);
      }
      l.effectivePeriodMs = determineResyncPeriod(requested, resyncCheckPeriodMs);
      l.nextResyncAt = scheduler.now() + l.effectivePeriodMs;
      const syncedSub = l.synced.subscribe((v) => syncedOut.next(v));
      // SI-10: replay the cache, then join; nothing can run in between.
      for (const key of indexer.listKeys()) {
        const object = indexer.get(key);
        if (object !== undefined) l.offer(key, { type: 'add', object, isInInitialList: true });
      }
      if (subscriber.closed) {
        syncedSub.unsubscribe(); // its process step failed during the replay: nothing to start
        return undefined;
      }
      listeners = [...listeners, l as Listener<T, unknown>];
      l.checkSynced();
      const coreSub = core$.subscribe({
        error: (err: unknown) => {
          l.close();
          subscriber.error(err);
        },
        complete: () => l.complete(),
      });
      return () => {
        listeners = listeners.filter((x) => x !== l);
        l.close();
        syncedSub.unsubscribe();
        coreSub.unsubscribe();
      };
    }).pipe(
      tap({ subscribe: () => syncedOut.next(false) }),
      share(),
    );
    return {
      events$,
      synced$: syncedOut.pipe(distinctUntilChanged()),
      hasSynced: () => syncedOut.value,
    };
  };

  const handles = new Map<string, IndexHandle<T>>();
  const informer: SharedInformer<T, string> = {
    name,
    ...(resource === undefined ? {} : { resource }),
    store: indexer,
    synced$: synced.pipe(distinctUntilChanged()),
    hasSynced: () => synced.value,
    waitForSync: (timeoutMs?: number) => {
      const done$ = synced.pipe(filter(Boolean));
      return firstValueFrom(
        timeoutMs === undefined ? done$ : race(done$, timer(timeoutMs, scheduler).pipe(map(() => false))),
      );
    },
    get lastSyncResourceVersion() {
      return lastRV;
    },
    errors$: errors.asObservable(),
    status$,
    get isRunning() {
      return running;
    },
    get resyncCheckPeriodMs() {
      return resyncCheckPeriodMs;
    },
    events$: defer(() => register<never>({}).events$) as Observable<InformerEvent<T>>,
    get state$() {
      return state$;
    },
    run$: core$,
    listen: (<R>(opts: Partial<ProcessListenerOptions<T, R>> = {}) => register<R>(opts)) as SharedInformer<T>['listen'],
    addIndexers: (more: Indexers<T>) => indexer.addIndexers(more, { backfill: true }),
    withIndex: <N extends string>(indexName: N, fn: IndexFunc<T>) => {
      declareIndex(indexer, indexName, fn);
      return informer;
    },
    by: <N extends string>(indexName: N): IndexHandle<T, N> => {
      let handle = handles.get(indexName);
      if (handle === undefined || handle.on !== indexer.getIndexers()[indexName]) {
        handle = indexHandle<T, string>(informer, indexName);
        handles.set(indexName, handle);
      }
      return handle as IndexHandle<T, N>;
    },
    backlogs: () => new Map(listeners.map((l) => [l.name, l.backlog.size])),
    resyncPeriods: () => new Map(listeners.map((l) => [l.name, l.effectivePeriodMs])),
  };
  const state$ = informerState<T>(informer, {
    scheduler,
    ...(options.stateBatchMs === undefined ? {} : { batchMs: options.stateBatchMs }),
  });
  return informer as SharedInformer<T>;
}

/** A relisted object the cache already held at the same resourceVersion: nothing happened to it. */
function isUnchangedByRelist<T extends KubeObject>(change: StoreChange<T>): boolean {
  return change.delta.type === 'Replaced' && change.old !== undefined && isResyncUpdate(change.old, change.delta.object as T);
}
