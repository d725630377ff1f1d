/**
 * `rxkube/cache`: keys, deltas, stores and indexes, and the cache's errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/cache
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { deletionHandlingKey, splitKey } from './keys.js';
export { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from './delta.js';
export type { Delta, Deltas, DeltaType, PoppedDeltas } from './delta.js';
export { metaNamespaceIndexFunc, NAMESPACE_INDEX } from './indexer.js';
export { freezeObject } from './freeze-object.js';
export type { FreezeMode } from './freeze-object.js';
export { CacheError, IndexFuncError, IndexNotFoundError, KeyError, TransformError } from './errors.js';
