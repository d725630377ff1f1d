import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { redactCause, redactSecrets } from '../logging/known-secrets.js';

/**
 * A successful (2xx) response whose body is not what the API promises: not JSON, or a list
 * without an `items` array. Raised instead of a bare `SyntaxError`/`TypeError` so callers (the
 * reflector retries it like any failed list) can tell a broken server or proxy from a bug. The
 * message names the method and path and the start of the body, never headers or credentials:
 * credentials in use are masked in the detail and in `cause`.
 */
export class ResponseDecodeError extends RxkubeError {
  static override readonly code: string = 'CLIENT_RESPONSE_DECODE_FAILED';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'ResponseDecodeError';

  constructor(
    readonly method: string,
    readonly path: string,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${method} ${path}: ${redactSecrets(detail)}`, options.cause === undefined ? {} : { cause: redactCause(options.cause) });
  }
}
