import type { UnstructuredObject } from 'rxkube';
import { expired } from './status-error.js';

/** One stored version of an object: the object, its JSON (serialized once) and its resourceVersion. */
export interface StoredEntry {
  readonly key: string;
  readonly object: UnstructuredObject;
  readonly json: string;
  readonly rv: number;
}

/** One change, as kept in the history and fanned out to watches. */
export interface StoreEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  /** `group/plural` ('' group for core), e.g. `/pods`, `apps/deployments`. */
  readonly resourceId: string;
  /** The new state (for DELETED: the last state, with the deletion's resourceVersion). */
  readonly entry: StoredEntry;
  /** The state before this change (undefined for ADDED). */
  readonly prev: StoredEntry | undefined;
}

/** Builds the key kube-apiserver sorts lists by: `namespace/name` or `name`. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function compareKeys(a: StoredEntry, b: StoredEntry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Serializes an object with its resourceVersion set; the string is reused by every reader. */
function withRv(object: UnstructuredObject, rv: number): { object: UnstructuredObject; json: string } {
  const meta = { ...(object.metadata ?? {}), resourceVersion: String(rv) };
  const stored = { ...object, metadata: meta };
  return { object: stored, json: JSON.stringify(stored) };
}

/**
 * The server's storage: objects per resource, ONE resourceVersion counter across all resources
 * (as etcd's revision), and a bounded history of changes (the "watch window"). Events older than
 * the window are compacted; asking for them gives 410 Expired, as kube-apiserver does.
 */
export class ObjectStore {
  private revision: number;
  private readonly buckets = new Map<string, Map<string, StoredEntry>>();
  private readonly lastWrite = new Map<string, number>();
  private history: StoreEvent[] = [];
  private historyStart = 0;
  private compactedRv: number;
  private readonly snapshots = new Map<string, StoredEntry[]>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();

  constructor(
    private readonly historyWindow: number,
    initialRv = 1,
  ) {
    this.revision = initialRv;
    this.compactedRv = initialRv;
  }

  /** The current (latest) resourceVersion. */
  get resourceVersion(): number {
    return this.revision;
  }

  /** The oldest resourceVersion a watch or exact list may still start from. */
  get oldestRetainedRv(): number {
    return this.compactedRv;
  }

  /** Subscribes to every change; returns an unsubscribe function. */
  onEvent(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private bucket(resourceId: string): Map<string, StoredEntry> {
    let b = this.buckets.get(resourceId);
    if (b === undefined) {
      b = new Map();
      this.buckets.set(resourceId, b);
    }
    return b;
  }

  /** The stored entry, or undefined. */
  get(resourceId: string, key: string): StoredEntry | undefined {
    return this.buckets.get(resourceId)?.get(key);
  }

  /** Number of objects stored for a resource. */
  count(resourceId: string): number {
    return this.buckets.get(resourceId)?.size ?? 0;
  }

  /** Stores a new or changed object under a new resourceVersion; returns the stored entry. */
  put(resourceId: string, key: string, object: UnstructuredObject): StoredEntry {
    const rv = ++this.revision;
    const { object: stored, json } = withRv(object, rv);
    const entry: StoredEntry = { key, object: stored, json, rv };
    const b = this.bucket(resourceId);
    const prev = b.get(key);
    b.set(key, entry);
    this.record({ type: prev === undefined ? 'ADDED' : 'MODIFIED', rv, resourceId, entry, prev });
    return entry;
  }

  /**
   * Removes an object; the DELETED event carries its last state (or `last`, when the deleting
   * write also changed it, e.g. removed the last finalizer) with a new resourceVersion.
   */
  remove(resourceId: string, key: string, last?: UnstructuredObject): StoredEntry | undefined {
    const b = this.buckets.get(resourceId);
    const prev = b?.get(key);
    if (b === undefined || prev === undefined) return undefined;
    const rv = ++this.revision;
    const { object, json } = withRv(last ?? prev.object, rv);
    const entry: StoredEntry = { key, object, json, rv };
    b.delete(key);
    this.record({ type: 'DELETED', rv, resourceId, entry, prev });
    return entry;
  }

  /** Drops every object of a resource without events (used when a CRD goes away). */
  dropResource(resourceId: string): void {
    this.buckets.delete(resourceId);
  }

  private record(event: StoreEvent): void {
    this.lastWrite.set(event.resourceId, event.rv);
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historyWindow) {
      const dropped = this.history[this.historyStart];
      this.historyStart++;
      if (dropped !== undefined) this.compactedRv = dropped.rv;
      if (this.historyStart > 4096 && this.historyStart * 2 > this.history.length) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
    if (this.snapshots.size > 0) this.pruneSnapshots();
    for (const l of this.listeners) l(event);
  }

  private pruneSnapshots(): void {
    if (this.snapshots.size <= 16) return;
    const first = this.snapshots.keys().next();
    if (first.done !== true) this.snapshots.delete(first.value);
  }

  /**
   * Forgets history up to `rv` (default: everything up to now), as etcd compaction does: later
   * watches or exact lists from an older resourceVersion get 410 Expired.
   */
  compact(rv = this.revision): void {
    const upTo = Math.min(rv, this.revision);
    if (upTo <= this.compactedRv) return;
    while (this.historyStart < this.history.length && (this.history[this.historyStart]?.rv ?? Infinity) <= upTo) this.historyStart++;
    this.history = this.history.slice(this.historyStart);
    this.historyStart = 0;
    this.compactedRv = upTo;
    for (const k of [...this.snapshots.keys()]) {
      if (Number(k.slice(k.lastIndexOf('@') + 1)) < upTo) this.snapshots.delete(k);
    }
  }

  /** Throws 410 Expired when `rv` is older than the retained history. */
  assertRetained(rv: number): void {
    if (rv < this.compactedRv) throw expired(`too old resource version: ${rv} (${this.compactedRv})`);
  }

  /** Changes to one resource after `rv` (exclusive), oldest first. Throws 410 when compacted. */
  eventsSince(resourceId: string, rv: number): StoreEvent[] {
    this.assertRetained(rv);
    const out: StoreEvent[] = [];
    const h = this.history;
    let lo = this.historyStart;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((h[mid]?.rv ?? 0) <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < h.length; i++) {
      const e = h[i];
      if (e !== undefined && e.resourceId === resourceId) out.push(e);
    }
    return out;
  }

  /**
   * All objects of a resource as of `atRv` (default: now), sorted by key. Snapshots are cached,
   * so paging through a large list sorts once. Throws 410 Expired when `atRv` is compacted.
   */
  snapshot(resourceId: string, atRv: number = this.revision): StoredEntry[] {
    const last = this.lastWrite.get(resourceId) ?? 0;
    const current = atRv >= last;
    if (!current) this.assertRetained(atRv);
    const effective = current ? last : atRv;
    const cacheKey = `${resourceId}@${effective}`;
    const cached = this.snapshots.get(cacheKey);
    if (cached !== undefined) return cached;
    let entries: StoredEntry[];
    if (current) {
      entries = [...(this.buckets.get(resourceId)?.values() ?? [])];
    } else {
      const state = new Map(this.buckets.get(resourceId) ?? []);
      const later = this.eventsSince(resourceId, atRv);
      for (let i = later.length - 1; i >= 0; i--) {
        const e = later[i];
        if (e === undefined) continue;
        if (e.prev === undefined) state.delete(e.entry.key);
        else state.set(e.prev.key, e.prev);
      }
      entries = [...state.values()];
    }
    entries.sort(compareKeys);
    this.snapshots.set(cacheKey, entries);
    this.pruneSnapshots();
    return entries;
  }

  /** Resource ids that hold objects. */
  resourceIds(): string[] {
    return [...this.buckets.keys()];
  }
}
