import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { redactCause, redactSecrets } from '../logging/known-secrets.js';

/**
 * The request never got an HTTP answer, or its body was cut off: connection refused or reset,
 * DNS or TLS failure, a response that ended early. `code` is `CLIENT_NETWORK_FAILURE`;
 * `causeCode` is Node's error code when there is one (`ECONNREFUSED`, `ECONNRESET`,
 * `DEPTH_ZERO_SELF_SIGNED_CERT`, …). The message names the method and path, never headers or
 * credentials (credentials in use are masked in the cause's text, which may quote the server).
 */
export class NetworkError extends RxkubeError {
  static override readonly code: string = 'CLIENT_NETWORK_FAILURE';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name: string = 'NetworkError';
  /** Node's error code of the cause (`ECONNREFUSED`, …), when it has one. */
  readonly causeCode: string | undefined;
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, cause: unknown) {
    const code = errorCode(cause);
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${path}: ${redactSecrets(detail)}`, { cause: redactCause(cause) });
    this.causeCode = code;
    this.method = method;
    this.path = path;
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** True for a {@link NetworkError}. */
export function isNetworkError(err: unknown): err is NetworkError {
  return err instanceof NetworkError;
}
