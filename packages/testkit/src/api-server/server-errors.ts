/**
 * The embedded API server's typed errors besides {@link StatusError} (which is a Status answered
 * over HTTP): what its programmatic API and its start-up throw.
 */
import { ConfigError, RxkubeError, type ErrorLayer } from 'rxkube';
import type { StatusError } from './status-error.js';

/** A programmatic call (`server.create`, `seed`, `update`, …) named an apiVersion and kind the server does not serve. */
export class UnknownKindError extends RxkubeError {
  static override readonly code: string = 'TESTING_KIND_UNKNOWN';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'UnknownKindError';
  /** The apiVersion asked for. */
  readonly apiVersion: string | undefined;
  /** The kind asked for. */
  readonly kind: string | undefined;

  constructor(apiVersion: string | undefined, kind: string | undefined) {
    super(`the embedded API server serves no resource for apiVersion ${String(apiVersion)} kind ${String(kind)}`);
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

/**
 * A programmatic write was refused with the Status a request would have got (message
 * `422 Invalid: Pod "x" is invalid: …`); `status` is that Status and `cause` the StatusError.
 */
export class DirectApiError extends RxkubeError {
  static override readonly code: string = 'TESTING_DIRECT_API_REFUSED';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'DirectApiError';
  /** The Status kube-apiserver would have answered. */
  readonly status: StatusError['status'];

  constructor(cause: StatusError) {
    super(`${cause.status.code} ${cause.status.reason ?? ''}: ${cause.status.message ?? ''}`, { cause });
    this.status = cause.status;
  }
}

/** An option of `startApiServer` or the `rxkube-apiserver` command line that cannot be used; `option` names it. */
export class ApiServerConfigError extends ConfigError {
  static override readonly code: string = 'TESTING_API_SERVER_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'ApiServerConfigError';
}
