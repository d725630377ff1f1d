import type { KubeObject } from '../api/kube-object.js';
import { splitApiVersion, type ResourceType } from '../api/resource.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { metaNamespaceKey, type ObjectKey } from '../cache/keys.js';
import type { Store } from '../cache/store.js';

/** `group/Kind`: the identity of a resource type across its versions (`/Pod` for core). */
export type ResourceId = string;

const ids = new WeakMap<object, ResourceId>();

/** The {@link ResourceId} of a resource type (remembered per type object). */
export function resourceIdOf(type: Pick<ResourceType, 'apiVersion' | 'kind'>): ResourceId {
  let id = ids.get(type);
  if (id === undefined) {
    id = `${splitApiVersion(type.apiVersion).group}/${type.kind}`;
    ids.set(type, id);
  }
  return id;
}

/** The controller's caches of one resource type in one cluster, and its writes of that type there not yet shown by all of them. */
export interface TypeBucket {
  readonly caches: WatchedCache[];
  readonly writes: Map<ObjectKey, OwnWrite>;
}

/** One of a controller's caches of a type, as read-your-writes sees it. */
export interface WatchedCache {
  readonly cluster: string | undefined;
  readonly resource: ResourceId;
  readonly store: Store;
  readonly bucket: TypeBucket;
  /**
   * The resourceVersion of the last event this cache delivered. Watch events come in version
   * order, so an integer one at or past a write's means the watch has passed the write. (An older
   * one, from a replay or a relist, only makes the rule wait longer.)
   */
  lastRv: string | undefined;
}

/** The last write of this controller to one object that its caches have not all shown yet. */
export interface OwnWrite {
  readonly cluster: string | undefined;
  readonly resource: ResourceId;
  readonly key: ObjectKey;
  /** True for a delete that removed the object (not one that only set `deletionTimestamp`). */
  readonly deleted: boolean;
  /** The server's answer to the write (the object at {@link rv}); for a delete, what it answered, if an object. */
  readonly object: KubeObject | undefined;
  readonly rv: string | undefined;
  /** Whether {@link rv} is a decimal integer. */
  readonly rvIsInt: boolean;
  readonly uid: string | undefined;
  /** The queue key of the reconcile that wrote it. */
  readonly origin: string;
  /** Scheduler time after which it is no longer waited for. */
  readonly deadline: number;
  /** The caches whose events showed it. */
  readonly seenBy: Set<WatchedCache>;
  readonly bucket: TypeBucket;
}

/** A write as the write hook reports it: what `OwnWrites.record` needs besides its origin. */
export type WriteInput = Omit<OwnWrite, 'origin' | 'deadline' | 'seenBy' | 'rvIsInt' | 'bucket'>;

const DECIMAL = /^(0|[1-9]\d*)$/;

/**
 * Whether resourceVersion `rv` is the write's or newer: compared as numbers when both are decimal
 * integers, else only an exact match counts (`undefined`: not comparable).
 */
function rvAtLeast(rv: string | undefined, write: OwnWrite): boolean | undefined {
  if (rv === undefined || write.rv === undefined) return undefined;
  if (rv === write.rv) return true;
  return write.rvIsInt && DECIMAL.test(rv) ? decimalAtLeast(rv, write.rv) : undefined;
}

/** `a >= b` for two decimal integers without leading zeros, as strings (no BigInt on the event path). */
function decimalAtLeast(a: string, b: string): boolean {
  return a.length !== b.length ? a.length > b.length : a >= b;
}

function uidDiffers(object: KubeObject, uid: string | undefined): boolean {
  const cached = object.metadata?.uid;
  return uid !== undefined && cached !== undefined && cached !== uid;
}

/**
 * The resourceVersion rule of read-your-writes: whether `cached` (the object a cache holds under
 * the write's key) shows `write`. Integer resourceVersions (etcd revisions: kube-apiserver's and
 * the embedded server's) compare as numbers; any other resourceVersion only by exact match
 * (events handle the rest: see {@link eventShows}). An object with another uid is a newer
 * incarnation, so it shows the write too. For a delete: the key is gone, or holds another uid.
 */
export function cacheShows(write: OwnWrite, cached: KubeObject | undefined): boolean {
  if (write.deleted) return cached === undefined || uidDiffers(cached, write.uid);
  if (cached === undefined) return false;
  if (uidDiffers(cached, write.uid)) return true;
  return rvAtLeast(cached.metadata?.resourceVersion, write) === true;
}

/**
 * Whether an event of the write's key, delivered after the write was recorded, shows it: a delete
 * event always does (nothing is deleted before it is written); for integer resourceVersions, an
 * object at the write's version or newer (or another uid); for opaque ones, any event that is not
 * a resync (the informer moved on since the write).
 */
export function eventShows(write: OwnWrite, event: InformerEvent): boolean {
  if (event.type === 'delete') return true;
  const object = event.object;
  if (uidDiffers(object, write.uid)) return true;
  if (write.deleted) return false;
  const rv = object.metadata?.resourceVersion;
  const atLeast = rvAtLeast(rv, write);
  if (atLeast !== undefined) return atLeast;
  return !(event.type === 'update' && event.resync);
}

/** Whether `cache` has shown `write`: by an event, by what it holds, or by its watch having passed the write's version. */
export function shownBy(write: OwnWrite, cache: WatchedCache): boolean {
  if (write.seenBy.has(cache)) return true;
  if (cacheShows(write, cache.store.get(write.key))) return true;
  const last = cache.lastRv;
  return !write.deleted && write.rvIsInt && last !== undefined && DECIMAL.test(last) && decimalAtLeast(last, write.rv as string);
}

/** The key of an event's object (a tombstone's own key). */
export function eventKey(event: InformerEvent): ObjectKey {
  const object = event.object;
  return object instanceof DeletedFinalStateUnknown ? object.key : metaNamespaceKey(object);
}

/** The resourceVersion an event carries, if any. */
export function eventRv(event: InformerEvent): string | undefined {
  const object = event.object instanceof DeletedFinalStateUnknown ? event.object.object : event.object;
  return object?.metadata?.resourceVersion ?? undefined;
}

/**
 * The writes of one controller not yet shown by its caches: the last write per object (cluster,
 * resource type, `namespace/name`), at most `max` of them (the oldest go first), each kept until
 * every cache of its type showed it or its deadline passed. An index by origin (the queue key of
 * the reconcile that wrote) finds what a key's next reconcile waits for.
 */
export class OwnWrites {
  /** Every tracked write, oldest first. */
  private readonly all = new Set<OwnWrite>();
  private readonly byOrigin = new Map<string, Set<OwnWrite>>();
  /** By `cluster|resource`. */
  private readonly buckets = new Map<string, TypeBucket>();

  constructor(
    private readonly max: number,
    private readonly timeoutMs: number,
  ) {}

  get size(): number {
    return this.all.size;
  }

  /** Adds a cache of the controller (its events then go to {@link observe}). */
  addCache(cluster: string | undefined, resource: ResourceId, store: Store): WatchedCache {
    const bucket = this.bucketOf(cluster, resource, true) as TypeBucket;
    const cache: WatchedCache = { cluster, resource, store, bucket, lastRv: undefined };
    bucket.caches.push(cache);
    return cache;
  }

  /** The writes and caches of a type in a cluster (undefined: the controller does not watch it there). */
  bucketOf(cluster: string | undefined, resource: ResourceId, create = false): TypeBucket | undefined {
    const k = `${cluster ?? ''}\u0000${resource}`;
    let bucket = this.buckets.get(k);
    if (bucket === undefined && create) {
      bucket = { caches: [], writes: new Map() };
      this.buckets.set(k, bucket);
    }
    return bucket;
  }

  /** The controller's caches of a type in a cluster. */
  cachesOf(cluster: string | undefined, resource: ResourceId): readonly WatchedCache[] {
    return this.bucketOf(cluster, resource)?.caches ?? [];
  }

  /** Records a write at scheduler time `now` (replacing the object's earlier one); ignored for a type the controller does not watch. */
  record(input: WriteInput, origin: string, now: number): void {
    const bucket = this.bucketOf(input.cluster, input.resource);
    if (bucket === undefined) return;
    const earlier = bucket.writes.get(input.key);
    if (earlier !== undefined) this.drop(earlier);
    while (this.all.size >= this.max) {
      const oldest = this.all.values().next();
      if (oldest.done === true) break;
      this.drop(oldest.value);
    }
    const rvIsInt = input.rv !== undefined && DECIMAL.test(input.rv);
    const write: OwnWrite = { ...input, rvIsInt, origin, deadline: now + this.timeoutMs, seenBy: new Set(), bucket };
    bucket.writes.set(write.key, write);
    this.all.add(write);
    const mine = this.byOrigin.get(origin);
    if (mine === undefined) this.byOrigin.set(origin, new Set([write]));
    else mine.add(write);
  }

  /** The pending write of an object, if any. */
  get(cluster: string | undefined, resource: ResourceId, key: ObjectKey): OwnWrite | undefined {
    return this.all.size === 0 ? undefined : this.bucketOf(cluster, resource)?.writes.get(key);
  }

  /** Whether any write of the type is pending (the stores' fast path). */
  hasAny(cluster: string | undefined, resource: ResourceId): boolean {
    return this.all.size > 0 && (this.bucketOf(cluster, resource)?.writes.size ?? 0) > 0;
  }

  /** The pending writes made by the reconciles of queue key `origin`. */
  byOriginKey(origin: string): OwnWrite[] {
    const mine = this.byOrigin.get(origin);
    return mine === undefined ? [] : [...mine];
  }

  /** An event of `cache`: marks the write of its key shown when it is, dropping it once every cache of its type showed it. */
  observe(cache: WatchedCache, event: InformerEvent): boolean {
    cache.lastRv = eventRv(event);
    if (cache.bucket.writes.size === 0) return false;
    const write = cache.bucket.writes.get(eventKey(event));
    if (write === undefined || !eventShows(write, event)) return false;
    write.seenBy.add(cache);
    this.dropIfShownEverywhere(write);
    return true;
  }

  /** Drops `write` once every cache of its type showed it; true when dropped. */
  dropIfShownEverywhere(write: OwnWrite): boolean {
    if (!write.bucket.caches.every((c) => shownBy(write, c))) return false;
    this.drop(write);
    return true;
  }

  /** Forgets a cluster that left: its caches and its writes not yet shown. */
  forgetCluster(cluster: string): void {
    const prefix = `${cluster}\u0000`;
    for (const [k, bucket] of [...this.buckets]) {
      if (!k.startsWith(prefix)) continue;
      for (const write of [...bucket.writes.values()]) this.drop(write);
      this.buckets.delete(k);
    }
  }

  /** Forgets `write` (shown, given up on, or past its deadline). */
  drop(write: OwnWrite): void {
    if (!this.all.delete(write)) return;
    if (write.bucket.writes.get(write.key) === write) write.bucket.writes.delete(write.key);
    const mine = this.byOrigin.get(write.origin);
    mine?.delete(write);
    if (mine?.size === 0) this.byOrigin.delete(write.origin);
  }
}
