export {
  checkRequestKey,
  parseRequestKey,
  requestKey,
} from './request.js';
export type {
  Request,
  WorkQueueAdd,
  WorkQueueInput,
} from './request.js';
export {
  InvalidRequestError,
} from './invalid-request-error.js';
export {
  TerminalError,
  isTerminalError,
} from './terminal-error.js';
export {
  ReconcileTimeoutError,
} from './reconcile-timeout-error.js';
export {
  ReconcileAbortedError,
} from './reconcile-aborted-error.js';
export type {
  ReconcileOutcome,
  ReconcileOutcomeKind,
  ReconcileResult,
} from './reconcile-result.js';
export {
  UNFINISHED_WORK_UPDATE_PERIOD,
  WORKQUEUE_METRIC_NAMES,
} from './metrics.js';
export type {
  WorkQueueMetrics,
} from './metrics.js';
export { type RateLimiter, RateLimiterOptionsError } from './rate-limiter.js';
export {
  exponentialFailureRateLimiter,
} from './exponential-failure-rate-limiter.js';
export type {
  ExponentialFailureRateLimiterOptions,
} from './exponential-failure-rate-limiter.js';
export {
  bucketRateLimiter,
} from './bucket-rate-limiter.js';
export type {
  BucketRateLimiterOptions,
} from './bucket-rate-limiter.js';
export {
  maxOfRateLimiter,
} from './max-of-rate-limiter.js';
export {
  fastSlowRateLimiter,
} from './fast-slow-rate-limiter.js';
export type {
  FastSlowRateLimiterOptions,
} from './fast-slow-rate-limiter.js';
export {
  withMaxWaitRateLimiter,
} from './with-max-wait-rate-limiter.js';
export {
  defaultControllerRateLimiter,
  defaultRateLimiter,
} from './default-rate-limiter.js';
export {
  KeyQueue,
} from './key-queue.js';
export type {
  QueueItem,
} from './key-queue.js';
export {
  WorkQueueOptionsError,
} from './work-queue-options-error.js';
