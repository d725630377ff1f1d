import type { KubeObject } from '../api/kube-object.js';
import type { ReflectorEvent } from '../reflector/reflector-event.js';
import type { DeletedFinalStateUnknown } from './delta.js';

/**
 * An operation on a `deltaFifo` (docs/semantics.md §1): a watched change, a complete relist, or a resync
 * request (re-queue every known object as `Sync`, DF-9).
 */
export type FifoOp<T extends KubeObject = KubeObject> =
  | { readonly type: 'add'; readonly object: T }
  | { readonly type: 'update'; readonly object: T }
  | { readonly type: 'delete'; readonly object: T | DeletedFinalStateUnknown<T> }
  | {
      readonly type: 'replace';
      readonly items: readonly T[];
      readonly resourceVersion?: string;
      /** Scope of the replace: only objects of this namespace not in `items` are deleted; absent: all. */
      readonly namespace?: string;
    }
  | { readonly type: 'resync' };

/** What `deltaFifo` accepts: its own operations or reflector events as they come from `listWatch()`. */
export type FifoInput<T extends KubeObject = KubeObject> = FifoOp<T> | ReflectorEvent<T>;

/**
 * Maps a reflector event to a FIFO operation: `added` → `add`, `modified` → `update`,
 * `deleted` → `delete`, `replace` → `replace`; a `bookmark` changes no object → `undefined`.
 * FIFO operations pass through unchanged. Anything else → `undefined`.
 */
export function toFifoOp<T extends KubeObject>(input: FifoInput<T>): FifoOp<T> | undefined {
  switch (input.type) {
    case 'added':
      return { type: 'add', object: input.object };
    case 'modified':
      return { type: 'update', object: input.object };
    case 'deleted':
      return { type: 'delete', object: input.object };
    case 'bookmark':
      return undefined;
    case 'add':
    case 'update':
    case 'delete':
    case 'replace':
    case 'resync':
      return input;
    default:
      return undefined;
  }
}
