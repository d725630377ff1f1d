/**
 * Expectations of a controller's own writes (kube-controller-manager's
 * `UIDTrackingControllerExpectations`): after creating N pods and deleting some named pods for a
 * ReplicaSet, the controller must not size that ReplicaSet again until its cache has seen those
 * creates and deletes, or it would count a stale cache and create (or delete) twice.
 *
 * - creates are counted: each pod add owned by the ReplicaSet lowers the count;
 * - deletes are tracked by pod key, so seeing a pod go twice (terminating, then gone) counts once;
 * - a record older than `ttlMs` (default 5 minutes) counts as satisfied: a watch event lost for good
 *   must not stall the ReplicaSet forever.
 */

interface Record {
  adds: number;
  readonly deletes: Set<string>;
  readonly at: number;
}

/** Outstanding writes of one ReplicaSet, for traces. */
export interface Pending {
  readonly adds: number;
  readonly deletes: number;
}

export class Expectations {
  private readonly records = new Map<string, Record>();

  /** `now` is the clock (ms); tests pass a virtual one. */
  constructor(
    private readonly now: () => number = Date.now,
    readonly ttlMs = 5 * 60_000,
  ) {}

  /** Before creating `count` pods for `owner` (a `namespace/name` key). */
  expectCreations(owner: string, count: number): void {
    this.records.set(owner, { adds: count, deletes: new Set(), at: this.now() });
  }

  /** Before deleting the pods named by `podKeys` for `owner`. */
  expectDeletions(owner: string, podKeys: readonly string[]): void {
    this.records.set(owner, { adds: 0, deletes: new Set(podKeys), at: this.now() });
  }

  /** A pod owned by `owner` appeared in the cache (or a create failed and will never appear). */
  creationObserved(owner: string): void {
    const r = this.records.get(owner);
    if (r !== undefined && r.adds > 0) r.adds--;
  }

  /** The pod `podKey` owned by `owner` is terminating or gone (or its delete failed). */
  deletionObserved(owner: string, podKey: string): void {
    this.records.get(owner)?.deletes.delete(podKey);
  }

  /** True when `owner` may be sized again: nothing outstanding, nothing recorded, or the record expired. */
  satisfied(owner: string): boolean {
    const r = this.records.get(owner);
    if (r === undefined) return true;
    if (r.adds <= 0 && r.deletes.size === 0) return true;
    return this.now() - r.at > this.ttlMs;
  }

  /** What `owner` still waits for, if anything. */
  pending(owner: string): Pending | undefined {
    const r = this.records.get(owner);
    return r === undefined || this.satisfied(owner) ? undefined : { adds: r.adds, deletes: r.deletes.size };
  }

  /** Forgets `owner` (its ReplicaSet is gone). */
  forget(owner: string): void {
    this.records.delete(owner);
  }
}
