import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/** Thrown (or emitted as the stream's error) when something that is not a valid request is queued. */
export class InvalidRequestError extends RxkubeError {
  static override readonly code: string = 'WORKQUEUE_REQUEST_INVALID';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'InvalidRequestError';
}
