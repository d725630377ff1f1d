import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { redactCause, redactedExcerpt, redactSecrets } from '../logging/known-secrets.js';

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

/**
 * A response body as JSON: `undefined` for an empty body, else the parsed value; a body that is not
 * JSON is a {@link ResponseDecodeError} quoting its (redacted) start. Both transports decode with it.
 */
export function parseJsonBody<T>(method: string, path: string, text: string): T {
  if (text.trim() === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new ResponseDecodeError(method, path, `response body is not JSON: ${JSON.stringify(redactedExcerpt(text, 80))}`, { cause });
  }
}
