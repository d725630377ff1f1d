export {
  dropManagedFields,
} from './drop-managed-fields.js';
export {
  filterTransition,
} from './filter-transitions.js';
export {
  InformerConfigError,
  InformerError,
  InformerSourceError,
  InformerStartedError,
  ListenerError,
} from './informer-errors.js';
export {
  eventKey,
  objectOf,
} from './event-object.js';
export {
  InformerFactory,
} from './informer-factory.js';
export type {
  InformerFactoryOptions,
  InformerRequest,
  ListWatcherFactory,
} from './informer-factory.js';
export {
  Listener,
} from './informer-listener.js';
export type {
  ListenerHost,
  ListenerOptions,
  ProcessListenerOptions,
} from './informer-listener.js';
export {
  collectByKey,
  distinctByKey,
  keyedChange,
  mapByKey,
  scanByKey,
  switchMapByKey,
} from './keyed-operators.js';
export type {
  KeyedChange,
  KeyedInput,
  KeyedValue,
  LiveJoined,
} from './keyed-operators.js';
export {
  labelMatcher,
} from './label-selector.js';
export type {
  LabelMatcher,
  LabelSelector,
} from './label-selector.js';
export {
  lister,
} from './lister.js';
export type {
  Lister,
} from './lister.js';
export {
  ListenerBacklog,
} from './listener-backlog.js';
export {
  MIN_RESYNC_PERIOD_MS,
  clampResyncPeriod,
  determineResyncPeriod,
} from './resync-period.js';
export {
  sharedInformer,
} from './shared-informer.js';
export type {
  InformerListener,
  InformerSource,
  SharedInformer,
  SharedInformerOptions,
} from './shared-informer.js';
export {
  informerState,
} from './state.js';
export type {
  CacheSnapshot,
  InformerStateOptions,
  SnapshotChange,
  StateSource,
} from './state.js';
export {
  joinOn,
  whenSynced,
} from './sync-aware.js';
export type {
  SyncGate,
} from './sync-aware.js';
export {
  declareIndex,
  indexHandle,
} from './typed-index.js';
export type {
  IndexHandle,
} from './typed-index.js';
export {
  waitForCacheSync,
} from './wait-for-cache-sync.js';
export type {
  SyncSource,
  WaitForCacheSyncOptions,
} from './wait-for-cache-sync.js';
export {
  ListWatchError,
} from './list-watch-error.js';
export {
  INFORMER_MONITOR_KEY,
} from './informer-monitor.js';
export type {
  InformerMonitor,
  MonitoredInformers,
} from './informer-monitor.js';
export {
  informerFactoryRunnable,
} from './informer-factory-runnable.js';
export type {
  FactoryView,
  InformerScope,
} from './informer-factory-runnable.js';
export {
  WaitTimeoutError,
  storeOf,
  waitFor,
} from './until.js';
export {
  until,
} from './wait.js';
export type {
  CacheSource,
  WaitOptions,
} from './until.js';
export {
  compareResourceVersions,
  untilCached,
} from './until-cached.js';
export type {
  CachedWrite,
} from './until-cached.js';
