export type {
  CoreEvent,
  EventPatch,
  EventSource,
  EventType,
  ObjectReference,
} from './core-event.js';
export type {
  EventsApi,
} from './events-api.js';
export {
  TokenBucket,
} from './token-bucket.js';
export {
  LruCache,
} from './lru-cache.js';
export {
  COMBINED_EVENT_PREFIX,
  EventCorrelator,
  eventKey,
} from './event-correlator.js';
export type {
  CorrelationResult,
  EventCorrelatorOptions,
} from './event-correlator.js';
export {
  eventRecorder,
  kubeTime,
} from './event-recorder.js';
export type {
  EventOptions,
  EventRecorder,
  EventRecorderOptions,
} from './event-recorder.js';
export {
  clientEventsApi,
} from './client-events-api.js';
export type {
  ClientEventsApi,
  ClientEventsApiOptions,
  EventsApiVersion,
} from './client-events-api.js';
export {
  fromEventsV1,
  microTime,
  seriesPatch,
  toEventsV1,
} from './events-v1.js';
export {
  EVENT_RECORDERS_KEY,
} from './recorder-key.js';
