/**
 * `rxkube/informer`: shared-informer extras: more predicates, managed-field dropping, the informer's errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/informer
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { dropManagedFields } from './drop-managed-fields.js';
export { InformerConfigError, InformerError, ListenerError } from './informer-errors.js';
export { ListWatchError } from './list-watch-error.js';
export { annotationsChanged, labelSelectorPredicate, objectPredicate, resourceVersionChanged } from './predicates.js';
// `until`'s options (`after`: a write of this process to wait for before the predicate is tested).
export type { UntilOptions } from './wait.js';
export type { HandlerTiming } from './informer-listener.js';
// A lease on a factory's informer (`InformerFactory.acquire`), freed once released and stopped.
export type { InformerLease } from './informer-factory.js';
