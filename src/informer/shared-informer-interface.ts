import type { Observable } from 'rxjs';
import type { Cached, KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { NAMESPACE_INDEX } from '../cache/indexer.js';
import type { InformerEvent } from '../cache/informer-event.js';
import type { ObjectKey } from '../cache/keys.js';
import type { IndexFunc, Indexers, Store } from '../cache/store.js';
import type { ReflectorStatus } from '../reflector/reflector-status.js';
import type { HandlerTiming, InformerListener, ListenerOptions, ProcessListenerOptions } from './informer-listener.js';
import type { CacheSnapshot } from './state.js';

// A shared informer and its index handles name each other, so they are declared together; the
// functions that make them (`sharedInformer`, `indexHandle`) import this file, never the reverse.

/**
 * A shared informer: one list/watch and one cache for any number of subscribers. `I` names the
 * indexes declared with {@link SharedInformer.withIndex}, so `by(name)` only accepts those (and the
 * built-in `namespace` index).
 */
export interface SharedInformer<T extends KubeObject = KubeObject, I extends string = never> {
  readonly name: string;
  /** The resource type it serves, when known (always for an `InformerFactory`'s informers): `informerSource(informer)` reads it. */
  readonly resource?: ResourceType<T>;
  /**
   * The cache (read-only view, with indexes). Its objects came from the API server, so they are
   * {@link Cached}: `metadata.name`, `uid` and `resourceVersion` are strings (no `!` needed).
   */
  readonly store: Store<Cached<T>>;
  /** `true` once the initial list has been cached; `false` while stopped. Replays the current value. */
  readonly synced$: Observable<boolean>;
  hasSynced(): boolean;
  /** Resolves `true` once synced, `false` after `timeoutMs` (default: never times out). Does not start the informer. */
  waitForSync(timeoutMs?: number): Promise<boolean>;
  /** Resource version of the last list, event or bookmark seen; `''` before start. */
  readonly lastSyncResourceVersion: string;
  /**
   * Everything that goes wrong, as it happens (hot): failed lists and watches the reflector
   * retries by itself (`ListWatchError`), cache input errors, subscriber failures
   * (`ListenerError`) and the source's end (`InformerSourceError`).
   */
  readonly errors$: Observable<Error>;
  /** The reflector's status (hot; never emits for a plain Observable source). */
  readonly status$: Observable<ReflectorStatus>;
  /**
   * Hot: each time a subscriber finished one notification, how long it took (per registration).
   * Measured only while this has subscribers (the manager's informer metrics subscribe).
   */
  readonly handled$: Observable<HandlerTiming>;
  /**
   * Scheduler time (ms) the last list, watch event or bookmark arrived from the source;
   * `undefined` before the first. Its age shows a watch that has gone quiet.
   */
  readonly lastEventAt: number | undefined;
  /** Whether the list/watch is running. */
  readonly isRunning: boolean;
  /** The resync check period in use (ms); fixed while running. */
  readonly resyncCheckPeriodMs: number;
  /**
   * Shortcut: every subscription is a new registration with default options. Event objects (and
   * a relist tombstone's last known state) are the {@link Cached} objects.
   */
  readonly events$: Observable<InformerEvent<Cached<T>>>;
  /**
   * The whole cache as a value: an immutable snapshot (`ReadonlyMap<key, T>`) once synced, then a
   * new one after each batch of changes (see `informerState`). Shared, replays the latest snapshot;
   * subscribing keeps the informer running. `combineLatest([pods.state$, nodes.state$])` is the
   * whole-table idiom.
   */
  readonly state$: Observable<CacheSnapshot<Cached<T>>>;
  /** Keeps the informer running while subscribed, without receiving notifications (emits nothing). */
  readonly run$: Observable<never>;
  /** Registers a subscriber with options. */
  listen(options?: ListenerOptions<Cached<T>>): InformerListener<InformerEvent<Cached<T>>>;
  listen<R>(options: ProcessListenerOptions<Cached<T>, R>): InformerListener<R>;
  /**
   * Adds index functions. Before start they are registered; after start the cached objects are
   * indexed at once (back-fill). A name that already exists throws `IndexerConflictError`.
   */
  addIndexers(indexers: Indexers<Cached<T>>): void;
  /**
   * Declares index `name` and returns this informer typed with it (declare once, then use
   * `by(name)`). Works before or after start (back-fills the cache). Declaring the same name with
   * the same function again is a no-op, so independent composition steps may each declare what
   * they need; with another function it throws `IndexerConflictError`.
   */
  withIndex<N extends string>(name: N, fn: IndexFunc<Cached<T>>): SharedInformer<T, I | N>;
  /** The handle of a declared index (a misspelt name does not compile). */
  by<N extends I | typeof NAMESPACE_INDEX>(name: N): IndexHandle<T, N>;
  /** Backlog sizes (events waiting) of the current registrations, by name. */
  backlogs(): ReadonlyMap<string, number>;
  /** Effective resync periods (SI-7) of the current registrations, by name. */
  resyncPeriods(): ReadonlyMap<string, number>;
}

/**
 * A declared index of one informer, by a name the type system knows: obtained from
 * `informer.withIndex('node', fn).by('node')`, so a misspelt name is a compile error rather than
 * an `IndexNotFoundError` at run time. A handle is also a join side (`store`, `index`, `on`): joins
 * take handles and reuse the informer's own index function.
 *
 * ```ts
 * const pods = informers.pods().withIndex('node', (p) => [p.spec?.nodeName ?? '']);
 * const byNode = pods.by('node');      // IndexHandle<K8s.Pod, 'node'>
 * byNode.list('node-a');               // the pods on node-a, from the cache
 * // @ts-expect-error: '"nodes"' is not assignable to '"node" | "namespace"'
 * pods.by('nodes');
 * ```
 */
export interface IndexHandle<T extends KubeObject = KubeObject, N extends string = string> {
  /** The informer whose cache this index is part of. */
  readonly informer: SharedInformer<T>;
  /** The index name (also `index`, as a join side names it). */
  readonly name: N;
  readonly index: N;
  /** The informer's cache. */
  readonly store: Store<Cached<T>>;
  /** The index function: the values an object is indexed under. */
  readonly on: IndexFunc<Cached<T>>;
  /** Cached objects indexed under `value`. */
  list(value: string): Cached<T>[];
  /** Keys of the cached objects indexed under `value`, sorted. */
  keys(value: string): ObjectKey[];
  /** Index values that currently hold at least one object. */
  values(): string[];
}
