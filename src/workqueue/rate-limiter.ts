import { ConfigError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * A rate limiter as a value (client-go's `TypedRateLimiter`): decides how long a key waits before
 * it is retried. Delays are milliseconds.
 */
export interface RateLimiter {
  /** The delay for the next retry of `key`; records the attempt. */
  when(key: string): number;
  /** Stops tracking `key` (its failure count starts from zero again). */
  forget(key: string): void;
  /** How many times `key` has been retried since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Thrown by the rate limiter factories for out-of-range parameters; `option` names the parameter. */
export class RateLimiterOptionsError extends ConfigError {
  static override readonly code: string = 'WORKQUEUE_RATE_LIMITER_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'RateLimiterOptionsError';
}

/** @internal checks a millisecond duration parameter. */
export function checkDuration(name: string, value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new RateLimiterOptionsError(`${name} must be a number of milliseconds ≥ 0, got ${String(value)}`, { option: name });
  }
  return value;
}
