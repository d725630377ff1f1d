import type { Status } from '../api/status.js';
import { type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';
import { redactCause, redactSecrets, redactSecretsDeep } from '../logging/known-secrets.js';
import { adviseApiError, type ResponseBodyShape } from './api-error-advice.js';
import type { ApiRequestContext } from './api-request-context.js';
import type { DeniedRequest } from './denied-request.js';
import type { RbacSuggestion } from './rbac-suggestion.js';

/**
 * The `code` of an {@link ApiError} for each Kubernetes `StatusReason`. A Status without a reason
 * (or with one not listed) takes the reason its HTTP status implies, as client-go's
 * `reasonForError` does; anything else is `API_UNKNOWN`.
 */
export const API_ERROR_CODES: Readonly<Record<string, string>> = Object.freeze({
  BadRequest: 'API_BAD_REQUEST',
  Unauthorized: 'API_UNAUTHORIZED',
  Forbidden: 'API_FORBIDDEN',
  NotFound: 'API_NOT_FOUND',
  MethodNotAllowed: 'API_METHOD_NOT_ALLOWED',
  NotAcceptable: 'API_NOT_ACCEPTABLE',
  AlreadyExists: 'API_ALREADY_EXISTS',
  Conflict: 'API_CONFLICT',
  Gone: 'API_GONE',
  Expired: 'API_EXPIRED',
  RequestEntityTooLarge: 'API_REQUEST_ENTITY_TOO_LARGE',
  UnsupportedMediaType: 'API_UNSUPPORTED_MEDIA_TYPE',
  Invalid: 'API_INVALID',
  TooManyRequests: 'API_TOO_MANY_REQUESTS',
  InternalError: 'API_INTERNAL_ERROR',
  StoreReadError: 'API_STORE_READ_ERROR',
  ServerTimeout: 'API_SERVER_TIMEOUT',
  ServiceUnavailable: 'API_SERVICE_UNAVAILABLE',
  Timeout: 'API_TIMEOUT',
});

/** The reason each HTTP status code stands for when a body names none (as apimachinery maps them). */
export const REASON_OF_STATUS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function apiErrorCode(reason: string, statusCode: number): string {
  if (Object.hasOwn(API_ERROR_CODES, reason)) return API_ERROR_CODES[reason] as string;
  const implied = REASON_OF_STATUS[statusCode];
  return implied !== undefined ? (API_ERROR_CODES[implied] as string) : ApiError.code;
}

/** Options of {@link ApiError}. */
export interface ApiErrorOptions {
  /** The HTTP status; default the Status' `code`. */
  readonly code?: number;
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
  /** The request answered: named in the message (server, method, path) and used by the hints. */
  readonly request?: ApiRequestContext;
  /** What the response body was; absent for a Status that came from elsewhere (a watch ERROR event). */
  readonly bodyShape?: ResponseBodyShape;
}

/** `(GET https://10.0.0.1:6443/api/v1/pods)`: the request without its query. */
function requestText(request: ApiRequestContext): string {
  const path = request.path.split('?')[0] ?? '';
  return ` (${redactSecrets(`${request.method} ${request.server}${path}`)})`;
}

/**
 * An error answered by the API server: an HTTP error response with a `Status` body, or a watch
 * `ERROR` event. `statusCode` is the HTTP status (or the Status' code), `reason` the
 * machine-readable reason (`NotFound`, `Conflict`, `Gone`, `Expired`, …), and `code` the rxkube
 * code derived from the reason: `API_NOT_FOUND`, `API_CONFLICT`, … (see {@link API_ERROR_CODES};
 * `API_UNKNOWN` when neither the reason nor the HTTP status is a known one).
 *
 * Errors that point at the fix: the message names the request (method, server, path) when the
 * connection gave it, and `hint` (also on the message's second line) says what to do: for a 404
 * that is not a Kubernetes Status, that the server is not (or may not be) a Kubernetes API server;
 * for a 401, whose credentials were refused and why; for a 403 of the API server's RBAC, who may
 * not do what where (`denied`) and the rule that allows it (`rbacRule`).
 */
export class ApiError extends RxkubeError {
  /** The code of an ApiError whose reason and status are both unknown; instances carry `API_<REASON>`. */
  static override readonly code: string = 'API_UNKNOWN';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'ApiError';
  /** `API_<REASON>`: the Status reason in SCREAMING_SNAKE (see {@link API_ERROR_CODES}). */
  override readonly code: string;
  /** The HTTP status (or the Status' `code`); 0 when there is neither. */
  readonly statusCode: number;
  readonly reason: string;
  readonly status: Status;
  /** Seconds from a `Retry-After` header, when the response had one. */
  readonly retryAfterSeconds: number | undefined;
  /** The request this answers (server without credentials, method, path, client identity), when known. */
  readonly request: ApiRequestContext | undefined;
  /** What the response body was (`status`, `html`, `text`, `json`, `empty`); undefined when not from a response. */
  readonly bodyShape: ResponseBodyShape | undefined;
  /**
   * True for a 404 whose body shows another server answered (an HTML page, plain text, other
   * JSON): the client is pointed at something that is not a Kubernetes API server. The code stays
   * `API_NOT_FOUND`.
   */
  readonly notKubernetes: boolean;
  /** What is likely wrong and how to fix it, when there is something to say (401, 403, a foreign 404). */
  readonly hint: string | undefined;
  /** A 403 of the API server's authorizer: who was refused which verb on what, where (from its message). */
  readonly denied: DeniedRequest | undefined;
  /** For {@link denied}: the Role or ClusterRole rule (and binding) that would allow the request. */
  readonly rbacRule: RbacSuggestion | undefined;

  /**
   * Every string of `status` (the server's text) is searched for the credentials in use and
   * masked (see `known-secrets.ts`), as is `cause`: an ApiError can be printed and logged safely.
   */
  constructor(serverStatus: Status, options: ApiErrorOptions = {}) {
    const status = redactSecretsDeep(serverStatus);
    const code = options.code ?? status.code ?? 0;
    const reason = status.reason ?? '';
    const advice = adviseApiError(code, status, options.request, options.bodyShape);
    const where = options.request === undefined ? '' : requestText(options.request);
    const hint = advice.hint === undefined ? undefined : redactSecrets(advice.hint);
    super(`${code}${reason ? ` ${reason}` : ''}: ${status.message ?? 'API request failed'}${where}${hint === undefined ? '' : `\n  hint: ${hint}`}`, {
      cause: redactCause(options.cause),
    });
    this.request = options.request;
    this.bodyShape = options.bodyShape;
    this.notKubernetes = advice.notKubernetes;
    this.hint = hint;
    this.denied = advice.denied;
    this.rbacRule = advice.rbac;
    this.statusCode = code;
    this.reason = reason;
    this.code = apiErrorCode(reason, code);
    this.status = status;
    this.retryAfterSeconds = options.retryAfterSeconds ?? status.details?.retryAfterSeconds;
  }
}

function asApiError(err: unknown): ApiError | undefined {
  return err instanceof ApiError ? err : undefined;
}

/** 410 Gone (reason `Gone` or HTTP 410): the requested resourceVersion is no longer available. */
export function isGone(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.statusCode === 410 || e.reason === 'Gone');
}

/** Reason `Expired` or Gone: a continue token or resourceVersion expired (client-go's isExpiredError). */
export function isExpired(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === 'Expired' || isGone(e));
}

/** The resourceVersion asked for is newer than the server has (docs/semantics.md RE-6). */
export function isTooLargeResourceVersion(err: unknown): boolean {
  const e = asApiError(err);
  if (e === undefined) return false;
  const causes = e.status.details?.causes ?? [];
  if (causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  if (e.statusCode !== 504 && e.reason !== 'Timeout') return false;
  return (
    causes.some((c) => (c.message ?? '').includes('Too large resource version')) ||
    (e.status.message ?? '').includes('Too large resource version')
  );
}

/**
 * 400 BadRequest or 422 Invalid: the server validated the request and refused it, so sending it
 * again unchanged gets the same answer.
 */
export function isInvalidRequest(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.statusCode === 400 || e.statusCode === 422 || e.reason === 'BadRequest' || e.reason === 'Invalid');
}

/** 409 Conflict (a stale resourceVersion on update). */
export function isConflict(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && e.statusCode === 409 && e.reason === 'Conflict';
}

/** 409 AlreadyExists. */
export function isAlreadyExists(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && e.reason === 'AlreadyExists';
}

/** 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.statusCode === 404 || e.reason === 'NotFound');
}

/** 429 TooManyRequests. */
export function isTooManyRequests(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.statusCode === 429 || e.reason === 'TooManyRequests');
}

/** Seconds the server asked us to wait (`Retry-After` or `details.retryAfterSeconds`), if any. */
export function retryAfter(err: unknown): number | undefined {
  return asApiError(err)?.retryAfterSeconds;
}
