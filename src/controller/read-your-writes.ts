import { Observable, type SchedulerLike, Subject, type Subscription, tap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { ErrorLayer } from '../api/rxkube-error.js';
import type { Store } from '../cache/store.js';
import type { Logger } from '../logging/logger.js';
import { ControllerError } from './controller-errors.js';
import type { ControllerSource } from './controller-source.js';
import type { ObjectKey } from '../cache/keys.js';
import { cacheShows, type OwnWrite, OwnWrites, resourceIdOf, shownBy, type TypeBucket, type WatchedCache } from './own-writes.js';
import { ownWritesStore, type PendingWrites } from './own-writes-store.js';
import type { Binding } from './source-bindings.js';
import type { WriteListener } from './write-tracking-client.js';

/**
 * A reconcile did not start because the controller's caches had not shown its own earlier writes
 * within `readYourWrites.timeoutMs` of them (its key was parked, holding no worker, until then):
 * it is requeued (rate-limited), and those writes are no longer waited for. Usually a watch that lags far behind or is broken; see docs/read-your-writes.md.
 */
export class ReadYourWritesTimeoutError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_READ_YOUR_WRITES_TIMEOUT';
  static override readonly layer: ErrorLayer = 'controller';
  override name = 'ReadYourWritesTimeoutError';
  constructor(
    readonly controller: string,
    /** The queue key whose reconcile waited. */
    readonly key: string,
    /** The writes not shown, as `group/Kind namespace/name@resourceVersion` (`… deleted` for deletes). */
    readonly writes: readonly string[],
    readonly timeoutMs: number,
  ) {
    super(
      `controller ${controller}: reconcile of ${key} requeued: its cache did not show this controller's own write${writes.length > 1 ? 's' : ''} ${writes.join(', ')} within ${timeoutMs} ms (readYourWrites)`,
    );
  }
}

function describe(write: OwnWrite): string {
  return `${write.resource} ${write.key}${write.deleted ? ' deleted' : `@${write.rv ?? '?'}`}`;
}

/** The request's own object, as {@link ReadYourWrites.parkUntil} checks it. */
export interface GatedObject {
  /** The `for` type (undefined: the controller has none). */
  readonly type: ResourceType | undefined;
  /** Its store key (`namespace/name` or `name`). */
  readonly key: string;
  readonly cluster: string | undefined;
  /** The `for` store the reconcile reads it from. */
  readonly store: Store;
}

/**
 * Read-your-writes for one controller (on by default, docs/read-your-writes.md): the writes its
 * reconciles make through `ctx` are recorded ({@link recorder}), the events of its sources tell
 * when its caches caught up ({@link watch}), a key's next reconcile is parked until they do
 * ({@link parkUntil}; it holds no worker meanwhile),
 * and `ctx`'s stores never return an object older than the controller's own write of it
 * ({@link store}). Only this controller's reads wait for this controller's writes.
 */
export class ReadYourWrites {
  private readonly writes: OwnWrites;
  /** A tick per source event, for the waiting gates. */
  private readonly changed = new Subject<void>();
  /** How many gates wait. */
  private waiting = 0;

  constructor(
    private readonly controller: string,
    private readonly scheduler: SchedulerLike,
    private readonly logger: { readonly current: Logger },
    readonly timeoutMs: number,
    maxTrackedWrites: number,
  ) {
    this.writes = new OwnWrites(maxTrackedWrites, timeoutMs);
  }

  /** How many writes are tracked (not yet shown by every cache of their type). */
  get tracked(): number {
    return this.writes.size;
  }

  /** `bindings` (of `cluster`) whose sources' events tell which of this controller's writes their caches show. */
  watch(bindings: readonly Binding[], cluster?: string): Binding[] {
    return bindings.map((binding) => {
      const source = binding.source;
      const cache = this.writes.addCache(cluster, resourceIdOf(source.resource), source.store);
      const watched: ControllerSource = {
        resource: source.resource,
        ...(source.name === undefined ? {} : { name: source.name }),
        store: source.store,
        register: () => {
          const registration = source.register();
          return {
            events$: registration.events$.pipe(
              tap((event) => {
                this.writes.observe(cache, event);
                if (this.waiting > 0) this.changed.next();
              }),
            ),
            synced$: registration.synced$,
          };
        },
      };
      return { ...binding, source: watched };
    });
  }

  /** A cluster left: its caches and pending writes are forgotten (a rejoin watches it afresh). */
  forgetCluster(cluster: string): void {
    this.writes.forgetCluster(cluster);
  }

  /** Where the reconcile of queue key `origin` (in `cluster`) reports its writes. */
  recorder(cluster: string | undefined, origin: string): WriteListener {
    return (write) => this.writes.record({ ...write, cluster }, origin, this.scheduler.now());
  }

  /** `store` (of `type`, in `cluster`) never returning an object older than this controller's write of it. */
  store<T extends KubeObject>(store: Store<T>, type: Pick<ResourceType, 'apiVersion' | 'kind'>, cluster: string | undefined): Store<T> {
    const bucket = this.writes.bucketOf(cluster, resourceIdOf(type));
    return ownWritesStore(store, new PendingWritesOf(this.writes, this.scheduler, store, bucket));
  }

  /**
   * Where the reconcile of queue key `origin` parks before it starts (the work queue's `park`):
   * while the caches do not show the controller's pending write of the request's own object
   * (until `own.store` shows it), or the pending writes of the key's earlier reconciles in the
   * request's namespace (all, for a cluster-scoped request; until a cache of their type shows
   * them). `undefined` when nothing is pending or one of them is past its deadline: the key runs
   * now (and {@link timedOut} then fails it). Else an Observable that emits once all are shown or
   * the earliest deadline passed (timed on the scheduler); the key is held by no worker meanwhile.
   */
  parkUntil(origin: string, own: GatedObject): Observable<void> | undefined {
    const pending = this.pendingFor(origin, own);
    if (pending === undefined) return undefined;
    const { unshown } = pending;
    let left = pending.left;
    if (left.some((w) => w.deadline <= this.scheduler.now())) return undefined;
    return new Observable<void>((subscriber) => {
      let timer: Subscription | undefined;
      const check = (): void => {
        left = left.filter(unshown);
        const now = this.scheduler.now();
        if (left.length === 0 || left.some((w) => w.deadline <= now)) {
          subscriber.next();
          subscriber.complete();
          return;
        }
        timer?.unsubscribe();
        timer = this.scheduler.schedule(() => check(), Math.min(...left.map((w) => w.deadline)) - now);
      };
      this.waiting++;
      const changes = this.changed.subscribe(() => check());
      check();
      return () => {
        this.waiting--;
        changes.unsubscribe();
        timer?.unsubscribe();
      };
    });
  }

  /**
   * As the reconcile of queue key `origin` starts: a {@link ReadYourWritesTimeoutError} (logged)
   * when a write it waits for (see {@link parkUntil}) is past its deadline; those writes are then
   * forgotten. `undefined` otherwise.
   */
  timedOut(origin: string, own: GatedObject): ReadYourWritesTimeoutError | undefined {
    const pending = this.pendingFor(origin, own);
    if (pending === undefined) return undefined;
    const now = this.scheduler.now();
    const late = pending.left.filter((w) => w.deadline <= now);
    if (late.length === 0) return undefined;
    for (const w of late) this.writes.drop(w);
    const error = new ReadYourWritesTimeoutError(this.controller, origin, late.map(describe), this.timeoutMs);
    this.logger.current.warn('read-your-writes: the cache did not show an own write in time; requeueing', { object: origin, err: error });
    return error;
  }

  /** The writes the reconcile of `origin` waits for that the caches do not show yet (undefined: none), and the test it uses. */
  private pendingFor(origin: string, own: GatedObject): { readonly left: OwnWrite[]; readonly unshown: (write: OwnWrite) => boolean } | undefined {
    if (this.writes.size === 0) return undefined;
    const ownId = own.type === undefined ? undefined : resourceIdOf(own.type);
    const ownWrite = ownId === undefined ? undefined : this.writes.get(own.cluster, ownId, own.key);
    const ownCache = ownId === undefined ? undefined : this.writes.cachesOf(own.cluster, ownId).find((c) => c.store === own.store);
    const unshown = (write: OwnWrite): boolean => {
      if (write === ownWrite && ownCache !== undefined) {
        if (!shownBy(write, ownCache)) return true;
        this.writes.dropIfShownEverywhere(write);
        return false;
      }
      if (this.writes.dropIfShownEverywhere(write)) return false;
      return !this.writes.cachesOf(write.cluster, write.resource).some((c) => shownBy(write, c));
    };
    // Of the key's earlier writes, those in its own namespace (where its owned objects live; a
    // cluster-scoped key: all): a namespace none of its informers watch would never show a write.
    const slash = own.key.indexOf('/');
    const prefix = slash < 0 ? undefined : own.key.slice(0, slash + 1);
    const candidates = new Set(this.writes.byOriginKey(origin).filter((w) => prefix === undefined || w.key.startsWith(prefix)));
    if (ownWrite !== undefined) candidates.add(ownWrite);
    const left = [...candidates].filter(unshown);
    return left.length === 0 ? undefined : { left, unshown };
  }
}

/** The controller's writes of one type in one cluster that one of its stores does not show yet. */
class PendingWritesOf implements PendingWrites {
  private readonly cache: WatchedCache | undefined;

  constructor(
    private readonly writes: OwnWrites,
    private readonly scheduler: SchedulerLike,
    private readonly store: Store,
    /** Undefined: the controller does not watch the type (it records no writes of it). */
    private readonly bucket: TypeBucket | undefined,
  ) {
    this.cache = bucket?.caches.find((c) => c.store === store);
  }

  active(): boolean {
    return this.writes.size > 0 && this.bucket !== undefined && this.bucket.writes.size > 0;
  }

  pending(key: ObjectKey): OwnWrite | undefined {
    const write = this.bucket?.writes.get(key);
    if (write === undefined) return undefined;
    if (write.deadline <= this.scheduler.now()) {
      this.writes.drop(write);
      return undefined;
    }
    // A store that is not one of the controller's sources (`storeOf` of another) shows it by what it holds.
    const shown = this.cache === undefined ? cacheShows(write, this.store.get(key)) : shownBy(write, this.cache);
    if (shown) this.writes.dropIfShownEverywhere(write);
    return shown ? undefined : write;
  }
}
