import {
  Observable,
  ReplaySubject,
  type SchedulerLike,
  Subscription,
  asyncScheduler,
  filter,
  share,
  take,
} from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { deletionHandlingKey, type ObjectKey } from '../cache/keys.js';
import { type MapChange, PersistentMapBuilder } from '../cache/persistent-map.js';
import type { InformerListener, ListenerOptions } from './informer-listener.js';

/** One key that differs between two snapshots: `before` absent → added, `after` absent → deleted. */
export type SnapshotChange<T> = MapChange<T>;

/**
 * The whole cache of an informer at one moment, as an immutable `ReadonlyMap` from object key
 * (`namespace/name`) to the cached (frozen) object. Consecutive snapshots share structure, so
 * keeping several costs memory only for what changed, and {@link CacheSnapshot.diff} lists the
 * changes between two of them in time proportional to the changes.
 */
export interface CacheSnapshot<T> extends ReadonlyMap<ObjectKey, T> {
  /** The keys whose objects differ between `previous` (an earlier snapshot, or any map) and this one. */
  diff(previous: ReadonlyMap<ObjectKey, T>): SnapshotChange<T>[];
}

/** Options of {@link informerState}. */
export interface InformerStateOptions {
  /**
   * How long changes are gathered into one snapshot after the first of them, in ms of `scheduler`.
   * Default 0: one snapshot per scheduler tick (all changes delivered in the same turn).
   */
  readonly batchMs?: number;
  /** Scheduler of the batching. Default `asyncScheduler` (an informer passes its own). */
  readonly scheduler?: SchedulerLike;
}

/** What {@link informerState} needs of an informer. */
export interface StateSource<T extends KubeObject> {
  readonly name: string;
  listen(options?: ListenerOptions<T>): InformerListener<InformerEvent<T>>;
}

/**
 * The cache as a stream of immutable snapshots (what `informer.state$` is): nothing until the
 * informer has synced, then the full snapshot, then a new snapshot after each batch of changes
 * (batched per `batchMs` on `scheduler`; a batch that changed nothing emits nothing, and an update
 * with an unchanged `resourceVersion` — a resync, or an unchanged object in a relist — is no change).
 *
 * Hot and shared, replaying the latest snapshot to a late subscriber (`share` with a
 * `ReplaySubject(1)` that is reset when the last subscriber leaves — the `refCount: true` rule):
 * subscribing keeps the informer running through one listener registration; when the last
 * subscriber leaves, the registration and the snapshots are released.
 *
 * Cost: one persistent-map write per cache change (O(log32 n), in place for keys already touched
 * in the same batch) and one O(1) seal per emitted snapshot — never a copy of the whole cache.
 *
 * ```
 * events:  -a-b------c---d-e---|    a, b: initial list; sync after b
 * state$:  ---S1-----S2--S3----|    S1 = {a, b}, S2 = {a, b, c}, S3 = {a, b, c, d, e} (d, e in one tick)
 * ```
 */
export function informerState<T extends KubeObject>(
  informer: StateSource<T>,
  options: InformerStateOptions = {},
): Observable<CacheSnapshot<T>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const batchMs = options.batchMs ?? 0;
  return new Observable<CacheSnapshot<T>>((subscriber) => {
    const builder = new PersistentMapBuilder<T>();
    const subscription = new Subscription();
    let synced = false;
    let pending: Subscription | undefined;
    const emit = (): void => {
      pending?.unsubscribe();
      pending = undefined;
      if (builder.changed || !synced) {
        synced = true;
        subscriber.next(builder.build());
      }
    };
    const registration = informer.listen({ name: `${informer.name}/state` });
    subscription.add(
      registration.events$.subscribe({
        next: (event) => {
          // Same resourceVersion (a resync, or an unchanged object in a relist): same content.
          if (event.type === 'update' && event.resync) return;
          const key = deletionHandlingKey(event.object);
          if (event.type === 'delete') builder.delete(key);
          else builder.set(key, event.object);
          if (synced && pending === undefined && builder.changed) pending = scheduler.schedule(emit, batchMs);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          if (synced) emit();
          subscriber.complete();
        },
      }),
    );
    subscription.add(
      registration.synced$.pipe(filter(Boolean), take(1)).subscribe(() => {
        if (!synced) emit();
      }),
    );
    return () => {
      subscription.unsubscribe();
      pending?.unsubscribe();
    };
  }).pipe(
    share({
      connector: () => new ReplaySubject<CacheSnapshot<T>>(1),
      resetOnError: true,
      resetOnComplete: true,
      resetOnRefCountZero: true,
    }),
  );
}
