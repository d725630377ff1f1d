import { ConfigError, type ErrorLayer } from '../api/rxkube-error.js';

/** Thrown by `workQueue(…)` when an option is out of range. */
export class WorkQueueOptionsError extends ConfigError {
  static override readonly code: string = 'WORKQUEUE_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'WorkQueueOptionsError';
}
