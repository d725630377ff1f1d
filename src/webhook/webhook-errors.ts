import { ConfigError, RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/** A webhook or webhook-server option is wrong (a path used twice, a bad timeout, no TLS material). */
export class WebhookConfigError extends ConfigError {
  static override readonly code: string = 'WEBHOOK_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'webhook';
  override readonly name = 'WebhookConfigError';
}

/**
 * A review the webhook server could not answer as asked: the body was not JSON, not an
 * AdmissionReview/ConversionReview of a known version, or lacked a field. `field` names what was
 * wrong (`request.uid`, `apiVersion`, …). The server answers it as a denial (admission) or a
 * `Failure` result (conversion); it is never thrown out of the server.
 */
export class WebhookReviewError extends RxkubeError {
  static override readonly code: string = 'WEBHOOK_REVIEW_INVALID';
  static override readonly layer: ErrorLayer = 'webhook';
  override readonly name = 'WebhookReviewError';

  constructor(
    /** The webhook's path. */
    readonly path: string,
    /** The field that was missing or wrong, when one is to blame. */
    readonly field: string | undefined,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`webhook ${path}: bad review${field === undefined ? '' : ` (${field})`}: ${reason}`, options);
  }
}

/** A request body longer than the server's `maxRequestBytes`; answered with HTTP 413. */
export class WebhookBodyTooLargeError extends RxkubeError {
  static override readonly code: string = 'WEBHOOK_BODY_TOO_LARGE';
  static override readonly layer: ErrorLayer = 'webhook';
  override readonly name = 'WebhookBodyTooLargeError';

  constructor(
    readonly path: string,
    readonly limitBytes: number,
  ) {
    super(`webhook ${path}: request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/** A handler did not answer within its `timeoutMs`; the request is denied with this message. */
export class WebhookHandlerTimeoutError extends RxkubeError {
  static override readonly code: string = 'WEBHOOK_HANDLER_TIMEOUT';
  static override readonly layer: ErrorLayer = 'webhook';
  override readonly name = 'WebhookHandlerTimeoutError';

  constructor(
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super(`webhook ${path}: handler did not answer within ${timeoutMs} ms`);
  }
}

/**
 * A handler or converter threw (or rejected); the request is denied (admission) or fails
 * (conversion) with this message, which names the webhook, the object and the handler's error.
 */
export class WebhookHandlerError extends RxkubeError {
  static override readonly code: string = 'WEBHOOK_HANDLER_FAILED';
  static override readonly layer: ErrorLayer = 'webhook';
  override readonly name = 'WebhookHandlerError';

  constructor(
    readonly path: string,
    /** `namespace/name` (or `name`) of the object under review, when known. */
    readonly object: string | undefined,
    cause: unknown,
  ) {
    super(`webhook ${path}${object === undefined ? '' : ` (${object})`}: handler failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The serving certificate or key could not be read or used (missing file, not PEM, key not
 * matching the certificate). At start it fails the webhook server; while rotating, the old pair
 * stays in use and the error is logged.
 */
export class WebhookTlsError extends RxkubeError {
  static override readonly code: string = 'WEBHOOK_TLS_INVALID';
  static override readonly layer: ErrorLayer = 'webhook';
  override readonly name = 'WebhookTlsError';

  constructor(
    /** The files (certificate, key) or `inline` for PEM given in memory. */
    readonly source: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`webhook TLS (${source}): ${reason}`, options);
  }
}
