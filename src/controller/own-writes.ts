import type { KubeObject } from '../api/kube-object.js';
import { splitApiVersion, type ResourceType } from '../api/resource.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { metaNamespaceKey, type ObjectKey } from '../cache/keys.js';
import type { Store } from '../cache/store.js';
import { compareResourceVersions } from '../informer/until-cached.js';

/** `group/Kind`: the identity of a resource type across its versions (`/Pod` for core). */
export type ResourceId = string;

/** The {@link ResourceId} of a resource type. */
export function resourceIdOf(type: Pick<ResourceType, 'apiVersion' | 'kind'>): ResourceId {
  return `${splitApiVersion(type.apiVersion).group}/${type.kind}`;
}

/** One of a controller's caches of a type, as read-your-writes sees it. */
export interface WatchedCache {
  readonly cluster: string | undefined;
  readonly resource: ResourceId;
  readonly store: Store;
  /** The highest integer resourceVersion this cache's events carried (watch events come in order). */
  maxSeen: bigint | undefined;
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
  /** {@link rv} as an integer, when it is one. */
  readonly rvInt: bigint | undefined;
  readonly uid: string | undefined;
  /** The queue key of the reconcile that wrote it. */
  readonly origin: string;
  /** Scheduler time after which it is no longer waited for. */
  readonly deadline: number;
  /** The caches whose events showed it. */
  readonly seenBy: Set<WatchedCache>;
}

/** A write as the write hook reports it: what `OwnWrites.record` needs besides its origin. */
export type WriteInput = Omit<OwnWrite, 'origin' | 'deadline' | 'seenBy' | 'rvInt'>;

function asInt(rv: string | undefined): bigint | undefined {
  return rv !== undefined && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
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
  const order = compareResourceVersions(cached.metadata?.resourceVersion, write.rv);
  return order !== undefined && order >= 0;
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
  const order = compareResourceVersions(rv, write.rv);
  if (order !== undefined) return order >= 0;
  return !(event.type === 'update' && event.resync);
}

/** Whether `cache` has shown `write`: by an event, by what it holds, or by its watch having passed the write's version. */
export function shownBy(write: OwnWrite, cache: WatchedCache): boolean {
  if (write.seenBy.has(cache)) return true;
  if (cacheShows(write, cache.store.get(write.key))) return true;
  return !write.deleted && write.rvInt !== undefined && cache.maxSeen !== undefined && cache.maxSeen >= write.rvInt;
}

/** The key of an event's object (a tombstone's own key). */
export function eventKey(event: InformerEvent): ObjectKey {
  const object = event.object;
  return object instanceof DeletedFinalStateUnknown ? object.key : metaNamespaceKey(object);
}

/** The integer resourceVersion an event carries, if any. */
export function eventRv(event: InformerEvent): bigint | undefined {
  const object = event.object instanceof DeletedFinalStateUnknown ? event.object.object : event.object;
  return asInt(object?.metadata?.resourceVersion ?? undefined);
}

/**
 * The writes of one controller not yet shown by its caches: the last write per object (cluster,
 * resource type, `namespace/name`), at most `max` of them (the oldest go first), each kept until
 * every cache of its type showed it or its deadline passed. An index by origin (the queue key of
 * the reconcile that wrote) finds what a key's next reconcile waits for.
 */
export class OwnWrites {
  private readonly writes = new Map<string, OwnWrite>();
  private readonly byOrigin = new Map<string, Set<string>>();
  /** Pending writes per `cluster|resource`. */
  private readonly perType = new Map<string, number>();
  /** Caches by `cluster|resource`. */
  private readonly caches = new Map<string, WatchedCache[]>();

  constructor(
    private readonly max: number,
    private readonly timeoutMs: number,
  ) {}

  get size(): number {
    return this.writes.size;
  }

  /** Adds a cache of the controller (its events then go to {@link observe}). */
  addCache(cache: WatchedCache): void {
    const k = typeKey(cache.cluster, cache.resource);
    const list = this.caches.get(k) ?? [];
    list.push(cache);
    this.caches.set(k, list);
  }

  /** The controller's caches of a type in a cluster. */
  cachesOf(cluster: string | undefined, resource: ResourceId): readonly WatchedCache[] {
    return this.caches.get(typeKey(cluster, resource)) ?? [];
  }

  /** Records a write at scheduler time `now` (replacing the object's earlier one); ignored for a type the controller does not watch. */
  record(input: WriteInput, origin: string, now: number): void {
    if (this.cachesOf(input.cluster, input.resource).length === 0) return;
    const k = writeKey(input.cluster, input.resource, input.key);
    this.remove(k);
    while (this.writes.size >= this.max) {
      const oldest = this.writes.keys().next();
      if (oldest.done === true) break;
      this.remove(oldest.value);
    }
    const write: OwnWrite = { ...input, rvInt: asInt(input.rv), origin, deadline: now + this.timeoutMs, seenBy: new Set() };
    this.writes.set(k, write);
    const t = typeKey(write.cluster, write.resource);
    this.perType.set(t, (this.perType.get(t) ?? 0) + 1);
    const keys = this.byOrigin.get(origin) ?? new Set<string>();
    keys.add(k);
    this.byOrigin.set(origin, keys);
  }

  /** The pending write of an object, if any. */
  get(cluster: string | undefined, resource: ResourceId, key: ObjectKey): OwnWrite | undefined {
    return this.writes.get(writeKey(cluster, resource, key));
  }

  /** Whether any write of the type is pending (the stores' fast path). */
  hasAny(cluster: string | undefined, resource: ResourceId): boolean {
    return this.writes.size > 0 && (this.perType.get(typeKey(cluster, resource)) ?? 0) > 0;
  }

  /** The pending writes made by the reconciles of queue key `origin`. */
  byOriginKey(origin: string): OwnWrite[] {
    const keys = this.byOrigin.get(origin);
    if (keys === undefined) return [];
    return [...keys].map((k) => this.writes.get(k)).filter((w): w is OwnWrite => w !== undefined);
  }

  /** An event of `cache`: marks the write of its key shown when it is, dropping it once every cache of its type showed it. */
  observe(cache: WatchedCache, event: InformerEvent): boolean {
    const rv = eventRv(event);
    if (rv !== undefined && (cache.maxSeen === undefined || rv > cache.maxSeen)) cache.maxSeen = rv;
    if (this.writes.size === 0) return false;
    const write = this.writes.get(writeKey(cache.cluster, cache.resource, eventKey(event)));
    if (write === undefined || !eventShows(write, event)) return false;
    write.seenBy.add(cache);
    this.dropIfShownEverywhere(write);
    return true;
  }

  /** Drops `write` once every cache of its type showed it; true when dropped. */
  dropIfShownEverywhere(write: OwnWrite): boolean {
    const caches = this.cachesOf(write.cluster, write.resource);
    if (!caches.every((c) => shownBy(write, c))) return false;
    this.drop(write);
    return true;
  }

  /** Forgets `write` (shown, given up on, or past its deadline). */
  drop(write: OwnWrite): void {
    const k = writeKey(write.cluster, write.resource, write.key);
    if (this.writes.get(k) === write) this.remove(k);
  }

  private remove(k: string): void {
    const write = this.writes.get(k);
    if (write === undefined) return;
    this.writes.delete(k);
    const t = typeKey(write.cluster, write.resource);
    const n = (this.perType.get(t) ?? 1) - 1;
    if (n === 0) this.perType.delete(t);
    else this.perType.set(t, n);
    const keys = this.byOrigin.get(write.origin);
    keys?.delete(k);
    if (keys?.size === 0) this.byOrigin.delete(write.origin);
  }
}

function typeKey(cluster: string | undefined, resource: ResourceId): string {
  return `${cluster ?? ''}\u0000${resource}`;
}

function writeKey(cluster: string | undefined, resource: ResourceId, key: ObjectKey): string {
  return `${cluster ?? ''}\u0000${resource}\u0000${key}`;
}
