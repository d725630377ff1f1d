export {
  DEFAULT_BACKOFF,
  DEFAULT_CONNECTION_BACKOFF,
  DEFAULT_SERVER_ERROR_BACKOFF,
  createBackoff,
} from './backoff.js';
export type {
  Backoff,
  BackoffOptions,
  BackoffStep,
} from './backoff.js';
export {
  isConnectionError,
  isConnectionRefused,
} from './connection-errors.js';
export {
  ListTimeoutError,
  listPages,
} from './list-pages.js';
export type {
  AssembledList,
  ListPagesOptions,
} from './list-pages.js';
export {
  listWatch,
} from './list-watch.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  MIN_WATCH_TIMEOUT_SECONDS,
  resolveListWatchOptions,
} from './list-watch-options.js';
export type {
  ListWatchOptions,
  ResolvedListWatchOptions,
} from './list-watch-options.js';
export {
  listWatchResource,
} from './list-watch-resource.js';
export type {
  ListOptions,
  ListPage,
  ListWatcher,
  WatchEvent,
  WatchOptions,
} from '../api/list-watcher.js';
export {
  reflector,
} from './reflector.js';
export type {
  Reflector,
} from './reflector.js';
export {
  ReflectorConfigError,
  ReflectorFatalError,
  UnusableWatchEventError,
  VeryShortWatchError,
  WatchStalledError,
} from './reflector-errors.js';
export type {
  ReflectorEvent,
} from './reflector-event.js';
export type {
  BackoffCause,
  ReflectorNextStep,
  ReflectorStatus,
} from './reflector-status.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './reflector-run.js';
