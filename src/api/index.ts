/**
 * `rxkube/api`: the shared contracts beyond the front door: runnables for the manager, label selectors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/api
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import './require-node.js';

export { compileLabelSelector, LabelSelectorError } from './label-selector.js';
export type { LabelSelectorRequirement, SelectorMatcher, StructuredLabelSelector } from './label-selector.js';

// The label-selector grammar, parsed (for servers and tools that evaluate selectors themselves).
export { parseLabelSelector } from './label-selector.js';
export type { LabelOperator, LabelRequirement, ParsedLabelSelector } from './label-selector.js';

// Objects as an informer's cache holds them (metadata with name, uid, resourceVersion).
export type { CachedEntry } from './kube-object.js';

// What a list/watch transport names about itself in errors (ReflectorFatalError).
export type { ListWatchTarget } from './list-watcher.js';
