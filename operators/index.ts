/**
 * The `rxkube/operators` entry: the pipeable operators, listed on purpose (as RxJS lists its own).
 * Each is implemented in its layer under src/; the types they take and give are in `rxkube`.
 *
 * @module rxkube/operators
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../src/api/require-node.js';

// Cache: DeltaFIFO coalescing, the indexed store, store changes as handler events.
export { deltaFifo } from '../src/cache/delta-fifo.js';
export type { DeltaFifoOptions, DeltaFifoProcessOptions } from '../src/cache/delta-fifo.js';
export { indexStore } from '../src/cache/index-store.js';
export type { IndexStoreOptions } from '../src/cache/index-store.js';
export { handlerEvents } from '../src/cache/handler-events.js';

// Informer events: predicates, filter transitions, joins.
export { filterEvents } from '../src/informer/predicates.js';
export { filterTransitions } from '../src/informer/filter-transitions.js';
export { join, joinInputs } from '../src/informer/join.js';
export type { JoinInput, Joined, JoinSide } from '../src/informer/join.js';
export { whenSynced } from '../src/informer/sync-aware.js';
export type { SyncGate } from '../src/informer/sync-aware.js';

// Keyed operators: per-key map, distinct, scan, switchMap over informer events or join output;
// a deleted key is forgotten, unsubscribing releases every per-key subscription.
export { collectByKey, distinctByKey, mapByKey, scanByKey, switchMapByKey } from '../src/informer/keyed-operators.js';
export type { KeyedChange, KeyedInput, KeyedValue, LiveJoined } from '../src/informer/keyed-operators.js';

// Work queue and the requests that feed it.
export { workQueue } from '../src/workqueue/work-queue.js';
export { toRequests } from '../src/controller/to-requests.js';
export { toOwnerRequests } from '../src/controller/to-owner-requests.js';
export { mapToRequests } from '../src/controller/map-to-requests.js';
