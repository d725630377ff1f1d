/**
 * `rxkube/reflector`: list/watch as an Observable of deltas: listWatch, reflector and their errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/reflector
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { listWatch } from './list-watch.js';
export { reflector } from './reflector.js';
export type { Reflector } from './reflector.js';
export { ListTimeoutError } from './list-pages.js';
export { ReflectorFatalError, WatchStalledError } from './reflector-errors.js';

// Bounds: a list that loops or never ends, objects of another kind or namespace, and the defaults.
export { ListContinueLoopError, ListPageLimitError } from './list-pages.js';
export { DEFAULT_LIST_MEMORY_BUDGET } from './list-pages.js';
export type { ListParse } from './list-pages.js';
export { UnexpectedObjectError } from './reflector-errors.js';
export { DEFAULT_MAX_LIST_PAGES, DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_WATCH_HEALTHY_MS } from './list-watch-options.js';
export type { ReflectorFatalErrorOptions } from './reflector-errors.js';
