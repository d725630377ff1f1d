export {
  CacheSyncTimeoutError,
  ControllerBuildError,
  ControllerError,
  ControllerStartedTwiceError,
} from './controller-errors.js';
export {
  sourceName,
} from './controller-source.js';
export type {
  ControllerSource,
  SourceRegistration,
} from './controller-source.js';
export {
  controller,
} from './controller.js';
export type {
  Controller,
  ControllerOptions,
  ControllerReconciler,
  ForSpec,
  OwnsSpec,
  WatchSpec,
} from './controller.js';
export {
  LOW_PRIORITY,
  eventPriority,
  mappedRequestsOf,
  objectRequestsOf,
  ownerRequestsOf,
} from './event-requests.js';
export type {
  OwnerRequestOptions,
  RequestAdd,
  RequestMapper,
} from './event-requests.js';
export {
  FinalizerConflictError,
  finalizer,
} from './finalizer.js';
export type {
  FinalizerOptions,
} from './finalizer.js';
export {
  nameIndex,
  ownerUidIndex,
  uidIndex,
} from './indexes.js';
export {
  informerSource,
} from './informer-source.js';
export {
  LabelSelectorError,
  compileLabelSelector,
} from '../api/label-selector.js';
export type {
  LabelSelectorRequirement,
  SelectorMatcher,
  StructuredLabelSelector,
} from '../api/label-selector.js';
export {
  noopEventRecorder,
} from './noop-event-recorder.js';
export type {
  ReconcileContext,
} from './reconcile-context.js';
export {
  indexMapper,
} from './index-mapper.js';
export {
  AlreadyOwnedError,
  ownerRefs,
} from './owner-references.js';
export type {
  ClaimDecision,
  OwnerReferenceOptions,
} from './owner-references.js';
export {
  conditions,
} from './conditions.js';
export type {
  Condition,
} from './conditions.js';
export {
  ControllerExpectations,
} from './expectations.js';
export type {
  ExpectationsOptions,
  PendingExpectations,
} from './expectations.js';
