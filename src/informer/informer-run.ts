import {
  AsyncSubject,
  BehaviorSubject,
  EMPTY,
  NEVER,
  Observable,
  type SchedulerLike,
  Subject,
  type Subscriber,
  type TeardownLogic,
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
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import { applyDeltas, type StoreChange } from '../cache/apply-deltas.js';
import { deltaFifo } from '../cache/delta-fifo.js';
import type { CacheError } from '../cache/errors.js';
import type { FifoInput } from '../cache/fifo-op.js';
import { Indexer } from '../cache/indexer.js';
import { type InformerEvent, isResyncUpdate, toInformerEvent } from '../cache/informer-event.js';
import type { ListWatchOptions } from '../reflector/list-watch-options.js';
import { reflector } from '../reflector/reflector.js';
import type { ReflectorEvent } from '../reflector/reflector-event.js';
import type { ReflectorStatus } from '../reflector/reflector-status.js';
import { dropManagedFields } from './drop-managed-fields.js';
import { listTimeTransform } from './list-time-transform.js';
import { InformerConfigError, InformerSourceError } from './informer-errors.js';
import { type HandlerTiming, type InformerListener, Listener, type ListenerHost, type ProcessListenerOptions } from './informer-listener.js';
import { ListWatchError } from './list-watch-error.js';
import { ListenerResync } from './listener-resync.js';
import { clampResyncPeriod } from './resync-period.js';
import type { InformerSource, SharedInformerOptions } from './shared-informer-options.js';

/**
 * Where a shared informer is:
 *
 * ```
 * stopped ──start (first subscriber)──▶ running ──stop (source ended, or stopGraceMs after the last subscriber left)──▶ stopped
 * ```
 *
 * - `stopped`: no list/watch runs (not started yet, or stopped); the cache stays readable and is
 *   reconciled by the next relist. A listener joining with a shorter resync period lowers the
 *   resync check period for everyone (SI-8).
 * - `running`: the source is subscribed and feeds the cache; the resync check period is fixed.
 */
export type InformerPhase = 'stopped' | 'running';

/** A registered listener and its resync timing, which the informer keeps (the listener does not). */
interface Member<T extends KubeObject> {
  readonly listener: Listener<T, unknown>;
  readonly resync: ListenerResync;
}

/** Throws `InformerConfigError` unless `value` is absent or a finite number >= 0. */
export function checkPeriod(value: number | undefined, what: string): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0))
    throw new InformerConfigError(`${what} must be a finite number >= 0, got ${value}`, { option: what });
}

/**
 * `defaultTransform`: the informer drops `managedFields` (the default transform), so watch lines
 * of a client source are parsed without them in the first place (`omitManagedFields`).
 */
function toEvents<T extends KubeObject>(
  source: InformerSource<T>,
  scheduler: SchedulerLike,
  name: string,
  listItemTransform: ((object: T) => T) | undefined,
  defaultTransform: boolean,
): { events$: Observable<ReflectorEvent<T>>; status$: Observable<ReflectorStatus> } {
  if (isObservable(source)) return { events$: source, status$: NEVER };
  if ('events$' in source) return source;
  const opts = (o: ListWatchOptions | undefined): ListWatchOptions => {
    if (listItemTransform === undefined) return { scheduler, name, ...o };
    const own = o?.listItemTransform as ((object: T) => T) | undefined;
    const early = own === undefined ? listItemTransform : (object: T) => listItemTransform(own(object));
    return { scheduler, name, ...o, listItemTransform: early as unknown as (object: KubeObject) => KubeObject };
  };
  if ('listWatcher' in source) return reflector(source.listWatcher, opts(source.listWatch));
  const scope = defaultTransform ? { omitManagedFields: true, ...source.scope } : (source.scope ?? {});
  return reflector(source.client.listWatcher<T>(source.resource, scope), opts(source.listWatch));
}

function resourceVersionOf<T extends KubeObject>(event: ReflectorEvent<T>): string | undefined {
  if (event.type === 'replace' || event.type === 'bookmark') return event.resourceVersion;
  // Malformed objects (null, no metadata) are the cache's to report (KeyError on errors$); reading
  // their version must not fail the whole informer.
  const object: unknown = event.object;
  const rv: unknown = typeof object === 'object' && object !== null ? (object as KubeObject).metadata?.resourceVersion : undefined;
  return typeof rv === 'string' ? rv : undefined;
}

/** A relisted object the cache already held at the same resourceVersion: nothing happened to it. */
function isUnchangedByRelist<T extends KubeObject>(change: StoreChange<T>): boolean {
  return change.delta.type === 'Replaced' && change.old !== undefined && isResyncUpdate(change.old, change.delta.object as T);
}

/**
 * The state of one shared informer (internal: the public surface is `sharedInformer()`): its
 * cache, its listeners and their resync timing, and the list/watch pipeline they share. Its phase
 * changes only in `start` and `stop`; the resync timing of its listeners only in `fitResync` and
 * `resyncDue`. Every timer runs on `scheduler`.
 */
export class InformerRun<T extends KubeObject> {
  readonly name: string;
  readonly resource: ResourceType<T> | undefined;
  readonly scheduler: SchedulerLike;
  /** The cache. */
  readonly indexer: Indexer<T>;
  /** `true` once the initial list has been cached; `false` while stopped. */
  readonly synced = new BehaviorSubject(false);
  readonly errors = new Subject<Error>();
  /** Every notification a subscriber finished, while observed (measured only then). */
  readonly handled = new Subject<HandlerTiming>();
  /** The reflector's status (never emits for a plain Observable source). */
  readonly status$: Observable<ReflectorStatus>;
  /**
   * The list/watch, shared by every listener (emits nothing): subscribed with the first, released
   * `stopGraceMs` after the last one left; an error or the source's end resets it.
   */
  readonly core$: Observable<never>;

  private phase: InformerPhase = 'stopped';
  /** The resync check period (SI-8): lowered by listeners joining while stopped, fixed while running. */
  private checkPeriodMs: number;
  private lastRV = '';
  private lastInputAt: number | undefined;
  private members: readonly Member<T>[] = [];
  private registrations = 0;
  private readonly defaultPeriodMs: number;
  private readonly transform: ((object: T) => T) | undefined;
  private readonly relistUnchanged: boolean;
  private readonly reflectorEvents$: Observable<ReflectorEvent<T>>;
  private readonly host: ListenerHost = {
    informerSynced: () => this.synced.value,
    reportError: (e: Error) => this.errors.next(e),
    timingStart: () => (this.handled.observed ? this.scheduler.now() : undefined),
    handled: (listener, startedAt) => this.handled.next({ listener, durationMs: this.scheduler.now() - startedAt }),
  };

  constructor(source: InformerSource<T>, options: SharedInformerOptions<T>) {
    checkPeriod(options.defaultResyncPeriodMs, 'defaultResyncPeriodMs');
    checkPeriod(options.stopGraceMs, 'stopGraceMs');
    const ofSource = !isObservable(source) && 'resource' in source ? source.resource : undefined;
    this.name = options.name ?? ofSource?.kind ?? 'informer';
    this.resource = options.resource ?? ofSource;
    this.scheduler = options.scheduler ?? asyncScheduler;
    const transform = options.transform === null ? undefined : (options.transform ?? dropManagedFields);
    const split = transform === undefined ? undefined : listTimeTransform(transform);
    this.transform = split?.queue;
    this.relistUnchanged = options.relistUnchanged ?? false;
    this.defaultPeriodMs = clampResyncPeriod(options.defaultResyncPeriodMs ?? 0);
    this.checkPeriodMs = this.defaultPeriodMs;
    this.indexer = new Indexer<T>({ indexers: options.indexers ?? {}, freeze: options.freeze ?? 'deep' });
    const { events$, status$ } = toEvents(source, this.scheduler, this.name, split?.list, options.transform === undefined);
    this.reflectorEvents$ = events$;
    this.status$ = status$;
    const grace = options.stopGraceMs ?? 0;
    this.core$ = defer(() => this.start()).pipe(
      share<never>({
        resetOnError: true,
        resetOnComplete: true,
        resetOnRefCountZero: grace > 0 ? () => timer(grace, this.scheduler) : true,
      }),
    );
  }

  get isRunning(): boolean {
    return this.phase === 'running';
  }

  /** Resource version of the last list, event or bookmark seen; `''` before start. */
  get lastSyncResourceVersion(): string {
    return this.lastRV;
  }

  /** Scheduler time (ms) the last list, watch event or bookmark arrived; `undefined` before the first. */
  get lastEventAt(): number | undefined {
    return this.lastInputAt;
  }

  get resyncCheckPeriodMs(): number {
    return this.checkPeriodMs;
  }

  /** Resolves `true` once synced, `false` after `timeoutMs` on the scheduler (default: never). */
  waitForSync(timeoutMs?: number): Promise<boolean> {
    const done$ = this.synced.pipe(filter(Boolean));
    return firstValueFrom(
      timeoutMs === undefined ? done$ : race(done$, timer(timeoutMs, this.scheduler).pipe(map(() => false))),
    );
  }

  /** Backlog sizes of the current listeners, by name. */
  backlogs(): ReadonlyMap<string, number> {
    return new Map(this.members.map((m) => [m.listener.name, m.listener.backlog.size]));
  }

  /** Effective resync periods (SI-7) of the current listeners, by name. */
  resyncPeriods(): ReadonlyMap<string, number> {
    return new Map(this.members.map((m) => [m.listener.name, m.resync.periodMs]));
  }

  /** A registration: each subscription of its `events$` joins a new listener (shared while subscribed). */
  listen<R>(opts: Partial<ProcessListenerOptions<T, R>>): InformerListener<R | InformerEvent<T>> {
    checkPeriod(opts.resyncPeriodMs, 'resyncPeriodMs');
    const syncedOut = new BehaviorSubject(false);
    const listenerName = opts.name ?? `${this.name}/listener-${++this.registrations}`;
    const events$ = new Observable<R | InformerEvent<T>>((subscriber) => this.join(listenerName, opts, subscriber, syncedOut)).pipe(
      tap({ subscribe: () => syncedOut.next(false) }),
      share(),
    );
    return {
      events$,
      synced$: syncedOut.pipe(distinctUntilChanged()),
      hasSynced: () => syncedOut.value,
    };
  }

  // ---- phase transitions: the only code that changes `phase` ----------------------------------

  /** stopped → running: the first listener (or `run$`) subscribed `core$`; returns the pipeline it subscribes. */
  private start(): Observable<never> {
    this.phase = 'running';
    // status$ is hot: subscribed before the source, so the first failed list is not missed.
    const listWatchErrors = this.status$.subscribe((st) => {
      if (st.type === 'error') this.errors.next(new ListWatchError(this.name, st.action, st.error));
    });
    const check = this.checkPeriodMs;
    const sourceDone = new AsyncSubject<void>();
    const resync$: Observable<FifoInput<T>> =
      check > 0
        ? timer(check, check, this.scheduler).pipe(
            filter(() => this.resyncDue()),
            map(() => ({ type: 'resync' }) as const),
            takeUntil(sourceDone),
          )
        : EMPTY;
    const input$ = merge(
      this.reflectorEvents$.pipe(
        tap((e) => {
          this.lastInputAt = this.scheduler.now();
          const rv = resourceVersionOf(e);
          if (rv !== undefined && rv !== '') this.lastRV = rv;
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
        knownObjects: this.indexer,
        emitDeltaTypeReplaced: true,
        ...(this.transform === undefined ? {} : { transform: this.transform }),
        onError: this.onCacheError,
        onSynced: () => {
          this.synced.next(true);
          for (const m of this.members) m.listener.checkSynced();
        },
        process: (popped) => {
          applyDeltas(this.indexer, popped, this.onCacheError, this.onStoreChange);
          return [];
        },
      }),
      tap({
        error: (err: unknown) => this.errors.next(new InformerSourceError(this.name, err)),
      }),
      finalize(() => {
        listWatchErrors.unsubscribe();
        this.stop();
      }),
    );
  }

  /** running → stopped: the pipeline ended (source ended or failed, or the last subscriber left). */
  private stop(): void {
    this.phase = 'stopped';
    if (this.synced.value) this.synced.next(false);
  }

  // ---- listeners (SI-7..SI-11) -----------------------------------------------------------------

  /** One subscription of a registration's `events$`: a new listener, replayed the cache, then live. */
  private join<R>(
    name: string,
    opts: Partial<ProcessListenerOptions<T, R>>,
    subscriber: Subscriber<R | InformerEvent<T>>,
    syncedOut: BehaviorSubject<boolean>,
  ): TeardownLogic {
    const resync = new ListenerResync(clampResyncPeriod(opts.resyncPeriodMs ?? this.defaultPeriodMs));
    const listener = new Listener<T, R>(name, subscriber, this.host, opts.filter, opts.process);
    this.fitResync(resync);
    const syncedSub = listener.synced.subscribe((v) => syncedOut.next(v));
    // SI-10: replay the cache, then join; nothing can run in between.
    for (const key of this.indexer.listKeys()) {
      const object = this.indexer.get(key);
      if (object !== undefined) listener.offer(key, { type: 'add', object, isInInitialList: true });
    }
    if (subscriber.closed) {
      syncedSub.unsubscribe(); // its process step failed during the replay: nothing to start
      return undefined;
    }
    const member: Member<T> = { listener: listener as Listener<T, unknown>, resync };
    this.members = [...this.members, member];
    listener.checkSynced();
    const coreSub = this.core$.subscribe({
      error: (err: unknown) => {
        listener.close();
        subscriber.error(err);
      },
      complete: () => listener.complete(),
    });
    return () => {
      this.members = this.members.filter((m) => m !== member);
      listener.close();
      syncedSub.unsubscribe();
      coreSub.unsubscribe();
    };
  }

  /**
   * SI-7, SI-8: sets a joining listener's effective period and first due time. While stopped, a
   * shorter period lowers the check period for everyone (a check period of 0 stays 0: an informer
   * created without resync never resyncs).
   */
  private fitResync(resync: ListenerResync): void {
    const requested = resync.requestedMs;
    if (this.phase === 'stopped' && requested > 0 && requested < this.checkPeriodMs) {
      this.checkPeriodMs = requested;
      for (const m of this.members) m.resync.fitTo(requested);
    }
    resync.fitTo(this.checkPeriodMs);
    resync.startAt(this.scheduler.now());
  }

  /** SI-9, at every resync check tick: marks which listeners get this resync; true when any does. */
  private resyncDue(): boolean {
    const now = this.scheduler.now();
    let any = false;
    for (const m of this.members) if (m.resync.check(now)) any = true;
    return any;
  }

  // ---- cache output --------------------------------------------------------------------------

  private readonly onCacheError = (e: CacheError): void => this.errors.next(e);

  /** A cache change goes to every listener; a resync update only to those it is due for (SI-9). */
  private readonly onStoreChange = (change: StoreChange<T>): void => {
    if (!this.relistUnchanged && isUnchangedByRelist(change)) return;
    const event = toInformerEvent(change);
    const resync = event.type === 'update' && event.resync;
    for (const m of this.members) {
      if (resync && !m.resync.due) continue;
      m.listener.offer(change.key, event);
    }
  };
}
