/** Thrown by `workQueue(…)` when an option is out of range. */
export class WorkQueueOptionsError extends RangeError {
  override readonly name = 'WorkQueueOptionsError';
}
