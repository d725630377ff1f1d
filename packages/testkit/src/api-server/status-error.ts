import { type ErrorLayer, RxkubeError } from 'rxkube';
import type { Status } from 'rxkube';

/** A field cause as kube-apiserver writes it (`reason`, `message`, `field`). */
export interface FieldCause {
  readonly reason?: string;
  readonly message: string;
  readonly field: string;
}

/** A Status answered by the embedded API server (thrown internally, written as the response body). */
export class StatusError extends RxkubeError {
  static override readonly code: string = 'TESTING_API_STATUS';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'StatusError';
  readonly status: Status & { readonly code: number };
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: Status & { readonly code: number }, headers: Readonly<Record<string, string>> = {}) {
    super(status.message ?? status.reason ?? 'error');
    this.status = status;
    this.headers = headers;
  }
}

/** What identifies the object an error is about, as kube-apiserver puts it in `details`. */
export interface ErrorTarget {
  /** Lower-case plural, e.g. `pods` (used as `details.kind`, as kube-apiserver does). */
  readonly plural: string;
  /** API group ('' for core). */
  readonly group: string;
  readonly name?: string;
}

/** Builds a failure Status with kube-apiserver's field order. */
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: Status['details'],
): Status & { readonly code: number } {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details !== undefined ? { details } : {}),
    code,
  };
}

function qualified(t: ErrorTarget): string {
  return t.group === '' ? t.plural : `${t.plural}.${t.group}`;
}

function details(t: ErrorTarget): NonNullable<Status['details']> {
  return { ...(t.name !== undefined ? { name: t.name } : {}), ...(t.group !== '' ? { group: t.group } : {}), kind: t.plural };
}

/** 404 NotFound for one object: `pods "x" not found`. */
export function notFound(t: ErrorTarget): StatusError {
  return new StatusError(failure(404, 'NotFound', `${qualified(t)} "${t.name ?? ''}" not found`, details(t)));
}

/** 404 for a URL that names no resource. */
export function unknownPath(): StatusError {
  return new StatusError(failure(404, 'NotFound', 'the server could not find the requested resource', {}));
}

/** 409 AlreadyExists. */
export function alreadyExists(t: ErrorTarget): StatusError {
  return new StatusError(failure(409, 'AlreadyExists', `${qualified(t)} "${t.name ?? ''}" already exists`, details(t)));
}

/** 409 Conflict: stale resourceVersion or failed precondition. */
export function conflict(t: ErrorTarget, why = 'the object has been modified; please apply your changes to the latest version and try again'): StatusError {
  return new StatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(t)} "${t.name ?? ''}": ${why}`, details(t)));
}

/** 422 Invalid with field causes: `Pod "x" is invalid: metadata.name: Required value: ...`. */
export function invalid(kind: string, group: string, name: string, causes: readonly FieldCause[]): StatusError {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const list = causes.length > 1 ? `[${text}]` : text;
  return new StatusError(
    failure(422, 'Invalid', `${kind}${group === '' ? '' : `.${group}`} "${name}" is invalid: ${list}`, {
      ...(name !== '' ? { name } : {}),
      ...(group !== '' ? { group } : {}),
      kind,
      causes: causes as NonNullable<Status['details']>['causes'],
    }),
  );
}

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return new StatusError(failure(400, 'BadRequest', message));
}

/** 410 Expired: a resourceVersion or continue token older than the retained history. */
export function expired(message: string): StatusError {
  return new StatusError(failure(410, 'Expired', message));
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(method: string): StatusError {
  return new StatusError(failure(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`, {}));
}

/** 401 Unauthorized. */
export function unauthorized(): StatusError {
  return new StatusError(failure(401, 'Unauthorized', 'Unauthorized'));
}

/** 413 RequestEntityTooLarge. */
export function tooLarge(limit: number): StatusError {
  return new StatusError(failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
}

/** 415 UnsupportedMediaType. */
export function unsupportedMediaType(contentType: string): StatusError {
  return new StatusError(failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml (got "${contentType}")`));
}

/**
 * 415 UnsupportedMediaType for a patch to a custom resource in a type it does not take (a strategic
 * merge patch): kube-apiserver's custom resource handler lists the patch types it accepts, without
 * `application/strategic-merge-patch+json` and without the type asked for.
 */
export function customResourcePatchTypeUnsupported(): StatusError {
  return new StatusError(failure(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'));
}

/** 504 Timeout with the ResourceVersionTooLarge cause (kube-apiserver's "Too large resource version"). */
export function tooLargeResourceVersion(asked: number, current: number): StatusError {
  return new StatusError(
    failure(504, 'Timeout', `Timeout: Too large resource version: ${asked}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
  );
}

/** Reason names kube-apiserver uses for an HTTP status code (used by injected failures). */
export function reasonForCode(code: number): string {
  switch (code) {
    case 400: return 'BadRequest';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 405: return 'MethodNotAllowed';
    case 409: return 'Conflict';
    case 410: return 'Expired';
    case 413: return 'RequestEntityTooLarge';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'Invalid';
    case 429: return 'TooManyRequests';
    case 500: return 'InternalError';
    case 503: return 'ServiceUnavailable';
    case 504: return 'Timeout';
    default: return 'Unknown';
  }
}
