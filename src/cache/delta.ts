import type { KubeObject } from '../api/kube-object.js';

/**
 * Kinds of change a {@link Delta} records (docs/semantics.md §1.1). `Replaced` comes from a relist when
 * `emitDeltaTypeReplaced` is on, `Sync` from a relist without it or from a resync.
 */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/** All {@link DeltaType} values, in declaration order. */
export const DELTA_TYPES: readonly DeltaType[] = ['Added', 'Updated', 'Deleted', 'Replaced', 'Sync'];

/**
 * Tombstone for an object whose deletion was inferred by a relist rather than watched: `object`
 * is the last state rxkube knew, possibly stale, or `null` when nothing was known.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  constructor(
    readonly key: string,
    readonly object: T | null,
  ) {
    Object.freeze(this);
  }
}

/** True for a {@link DeletedFinalStateUnknown} tombstone. */
export function isDeletedFinalStateUnknown(value: unknown): value is DeletedFinalStateUnknown {
  return value instanceof DeletedFinalStateUnknown;
}

/** One change of one object. A `Deleted` delta may carry a tombstone instead of the object. */
export interface Delta<T extends KubeObject = KubeObject> {
  readonly type: DeltaType;
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** The changes of one key since it was last handed out, oldest first, never empty. */
export type Deltas<T extends KubeObject = KubeObject> = readonly Delta<T>[];

/** The first delta, or `undefined` for an empty list. */
export function oldestDelta<T extends KubeObject>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas[0];
}

/** The last delta, or `undefined` for an empty list. */
export function newestDelta<T extends KubeObject>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas[deltas.length - 1];
}

/**
 * What `deltaFifo` hands to its consumer: every delta of one key since it was last popped, and
 * whether it belongs to the initial list (popped before the FIFO had synced, DF-10).
 */
export interface PoppedDeltas<T extends KubeObject = KubeObject> {
  readonly key: string;
  readonly deltas: Deltas<T>;
  readonly isInInitialList: boolean;
}
