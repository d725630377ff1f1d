export {
  applyDeltas,
} from './apply-deltas.js';
export type {
  StoreChange,
} from './apply-deltas.js';
export {
  DELTA_TYPES,
  DeletedFinalStateUnknown,
  isDeletedFinalStateUnknown,
  newestDelta,
  oldestDelta,
} from './delta.js';
export type {
  Delta,
  DeltaType,
  Deltas,
  PoppedDeltas,
} from './delta.js';
export {
  DeltaQueue,
} from './delta-queue.js';
export type {
  DeltaQueueOptions,
} from './delta-queue.js';
export {
  CacheError,
  IndexFuncError,
  IndexNotFoundError,
  IndexerConflictError,
  InvalidInputError,
  KeyError,
  TransformError,
  objectDescription,
} from './errors.js';
export {
  dispatchEvent,
} from './event-handler.js';
export type {
  EventHandlerFuncs,
} from './event-handler.js';
export {
  toFifoOp,
} from './fifo-op.js';
export type {
  FifoInput,
  FifoOp,
} from './fifo-op.js';
export {
  freezeObject,
} from './freeze-object.js';
export type {
  FreezeMode,
} from './freeze-object.js';
export {
  Indexer,
  NAMESPACE_INDEX,
  metaNamespaceIndexFunc,
} from './indexer.js';
export type {
  IndexerOptions,
} from './indexer.js';
export {
  isResyncUpdate,
  toInformerEvent,
} from './informer-event.js';
export type {
  InformerEvent,
} from './informer-event.js';
export {
  deletionHandlingKey,
  fifoKeyOf,
  joinKey,
  metaNamespaceKey,
  splitKey,
} from './keys.js';
export type {
  KeyFunction,
  ObjectKey,
  SplitKey,
} from './keys.js';
export {
  PersistentMap,
  PersistentMapBuilder,
} from './persistent-map.js';
export type {
  MapChange,
} from './persistent-map.js';
export type {
  IndexFunc,
  Indexers,
  KnownObjects,
  Store,
} from './store.js';
