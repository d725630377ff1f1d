/**
 * `rxkube/workqueue`: work-queue results, rate limiters beyond the default, and reconcile errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/workqueue
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { ReconcileAbortedError } from './reconcile-aborted-error.js';
export { ReconcileTimeoutError } from './reconcile-timeout-error.js';
export { exponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
export type { ExponentialFailureRateLimiterOptions } from './exponential-failure-rate-limiter.js';
export { bucketRateLimiter } from './bucket-rate-limiter.js';
export type { BucketRateLimiterOptions } from './bucket-rate-limiter.js';
export { fastSlowRateLimiter } from './fast-slow-rate-limiter.js';
export type { FastSlowRateLimiterOptions } from './fast-slow-rate-limiter.js';
export { maxOfRateLimiter } from './max-of-rate-limiter.js';
export { withMaxWaitRateLimiter } from './with-max-wait-rate-limiter.js';
export type { DropRequests } from './work-queue-options.js';
