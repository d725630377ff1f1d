import { asyncScheduler, type SchedulerLike, tap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { metaNamespaceKey } from '../cache/keys.js';
import type { ControllerSource } from './controller-source.js';

/** Options of {@link ControllerExpectations}. */
export interface ExpectationsOptions {
  /** After this long an unfulfilled expectation counts as satisfied (a lost watch event must not stall an owner). Default 300 000 (5 minutes, kube-controller-manager's). */
  readonly ttlMs?: number;
  /** The clock (`now()`); default `asyncScheduler` (pass the controller's scheduler, virtual in tests). */
  readonly scheduler?: Pick<SchedulerLike, 'now'>;
}

/** What an owner still waits for. */
export interface PendingExpectations {
  readonly creations: number;
  readonly deletions: number;
}

interface Entry {
  creations: number;
  deletions: number;
  /** Keys of objects whose deletion is expected (UID-tracking expectations), when given by key. */
  readonly keys: Set<string> | undefined;
  readonly at: number;
}

/**
 * Expectations of a controller's own writes (kube-controller-manager's `ControllerExpectations`
 * with `UIDTrackingControllerExpectations`' deletion keys): after creating N objects and
 * deleting some for an owner, the controller must not size that owner again until its cache has
 * seen those creates and deletes, or it would count a stale cache and create (or delete) twice.
 *
 * - {@link expectCreations} / {@link expectDeletions} before the writes (per owner key, e.g.
 *   `namespace/name`); {@link creationObserved} / {@link deletionObserved} as the cache sees them
 *   ({@link observe} wires a source of owned objects), or when a write failed and will never be seen;
 * - {@link satisfied} in the reconcile: true when nothing is outstanding, nothing was recorded,
 *   or the record is older than `ttlMs` on the scheduler's clock; while false, return
 *   `{ requeueAfter: expectations.expiresIn(key) }` (or wait for the events).
 */
export class ControllerExpectations {
  private readonly entries = new Map<string, Entry>();
  private readonly scheduler: Pick<SchedulerLike, 'now'>;
  /** The time-to-live of a record (ms). */
  readonly ttlMs: number;

  constructor(options: ExpectationsOptions = {}) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.ttlMs = options.ttlMs ?? 300_000;
  }

  /** Before creating `count` objects for `owner` (replaces what was expected). */
  expectCreations(owner: string, count: number): void {
    this.entries.set(owner, { creations: count, deletions: 0, keys: undefined, at: this.scheduler.now() });
  }

  /**
   * Before deleting objects for `owner` (replaces what was expected): their keys (`ns/name`),
   * so each deletion counts once however often it is seen (terminating, then gone), or a count.
   */
  expectDeletions(owner: string, keys: readonly string[] | number): void {
    const tracked = typeof keys === 'number' ? undefined : new Set(keys);
    this.entries.set(owner, { creations: 0, deletions: tracked?.size ?? (keys as number), keys: tracked, at: this.scheduler.now() });
  }

  /** Adds to what is expected (kube's `RaiseExpectations`), keeping the record's age. */
  raise(owner: string, creations: number, deletions = 0): void {
    const e = this.entries.get(owner);
    if (e === undefined) this.entries.set(owner, { creations, deletions, keys: undefined, at: this.scheduler.now() });
    else {
      e.creations += creations;
      e.deletions += deletions;
    }
  }

  /** An object of `owner` was created (seen in the cache), or its create failed. */
  creationObserved(owner: string): void {
    const e = this.entries.get(owner);
    if (e !== undefined && e.creations > 0) e.creations--;
  }

  /** An object of `owner` is terminating or gone (or its delete failed); `key` counts once when deletions were expected by key. */
  deletionObserved(owner: string, key?: string): void {
    const e = this.entries.get(owner);
    if (e === undefined || e.deletions <= 0) return;
    if (e.keys !== undefined) {
      if (key === undefined || !e.keys.delete(key)) return;
    }
    e.deletions--;
  }

  /** Whether `owner` may be acted on again: nothing outstanding, nothing recorded, or the record expired. */
  satisfied(owner: string): boolean {
    const e = this.entries.get(owner);
    if (e === undefined) return true;
    if (e.creations <= 0 && e.deletions <= 0) return true;
    return this.scheduler.now() - e.at >= this.ttlMs;
  }

  /** What `owner` still waits for, or undefined when {@link satisfied}. */
  pending(owner: string): PendingExpectations | undefined {
    const e = this.entries.get(owner);
    return e === undefined || this.satisfied(owner) ? undefined : { creations: Math.max(0, e.creations), deletions: Math.max(0, e.deletions) };
  }

  /** Milliseconds until the record of `owner` expires, or undefined when it is satisfied. */
  expiresIn(owner: string): number | undefined {
    const e = this.entries.get(owner);
    if (e === undefined || this.satisfied(owner)) return undefined;
    return Math.max(1, e.at + this.ttlMs - this.scheduler.now());
  }

  /** Forgets `owner` (e.g. it was deleted; kube's `DeleteExpectations`). */
  forget(owner: string): void {
    this.entries.delete(owner);
  }

  /**
   * Lowers expectations from one event of an owned object, as kube-controller-manager's handlers
   * do: an add counts as a creation (as a deletion if the object is already terminating); an
   * update that starts the object's deletion, and a delete, count as deletions.
   */
  observeEvent<T extends KubeObject>(event: InformerEvent<T>, ownerOf: (object: T) => string | undefined): void {
    const object = event.object instanceof DeletedFinalStateUnknown ? (event.object.object as T | undefined) : event.object;
    if (object === undefined || object === null) return;
    const owner = ownerOf(object);
    if (owner === undefined) return;
    const key = metaNamespaceKey(object);
    const terminating = object.metadata?.deletionTimestamp !== undefined;
    if (event.type === 'delete') this.deletionObserved(owner, key);
    else if (event.type === 'add') {
      if (terminating) this.deletionObserved(owner, key);
      else this.creationObserved(owner);
    } else if (terminating && event.old.metadata?.deletionTimestamp === undefined) this.deletionObserved(owner, key);
  }

  /**
   * `source` (of owned objects) with every registration's events lowering these expectations
   * first, so the reconcile an event triggers already sees them lowered. `ownerOf` names the
   * owner key of an object, e.g. from its controller reference.
   */
  observe<T extends KubeObject>(source: ControllerSource<T>, ownerOf: (object: T) => string | undefined): ControllerSource<T> {
    return {
      resource: source.resource,
      ...(source.name === undefined ? {} : { name: source.name }),
      store: source.store,
      register: () => {
        const registration = source.register();
        return { ...registration, events$: registration.events$.pipe(tap((e) => this.observeEvent(e, ownerOf))) };
      },
    };
  }
}
