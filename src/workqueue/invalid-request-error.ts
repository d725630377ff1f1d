/** Thrown (or emitted as the stream's error) when something that is not a valid request is queued. */
export class InvalidRequestError extends TypeError {
  override readonly name = 'InvalidRequestError';
}
