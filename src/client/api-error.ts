import type { Status } from '../api/status.js';

/**
 * An error answered by the API server: an HTTP error response with a `Status` body, or a watch
 * `ERROR` event. `code` is the HTTP status (or the Status' code), `reason` the machine-readable
 * reason (`NotFound`, `Conflict`, `Gone`, `Expired`, …).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: number;
  readonly reason: string;
  readonly status: Status;
  /** Seconds from a `Retry-After` header, when the response had one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: Status, options: { code?: number; retryAfterSeconds?: number; cause?: unknown } = {}) {
    const code = options.code ?? status.code ?? 0;
    const reason = status.reason ?? '';
    super(`${code}${reason ? ` ${reason}` : ''}: ${status.message ?? 'API request failed'}`, { cause: options.cause });
    this.code = code;
    this.reason = reason;
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
  return e !== undefined && (e.code === 410 || e.reason === 'Gone');
}

/** Reason `Expired` or Gone: a continue token or resourceVersion expired (client-go's isExpiredError). */
export function isExpired(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === 'Expired' || isGone(e));
}

/** The resourceVersion asked for is newer than the server has (SEMANTICS RE-6). */
export function isTooLargeResourceVersion(err: unknown): boolean {
  const e = asApiError(err);
  if (e === undefined) return false;
  const causes = e.status.details?.causes ?? [];
  if (causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  if (e.code !== 504 && e.reason !== 'Timeout') return false;
  return (
    causes.some((c) => (c.message ?? '').includes('Too large resource version')) ||
    (e.status.message ?? '').includes('Too large resource version')
  );
}

/** 409 Conflict (a stale resourceVersion on update). */
export function isConflict(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && e.code === 409 && e.reason === 'Conflict';
}

/** 409 AlreadyExists. */
export function isAlreadyExists(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && e.reason === 'AlreadyExists';
}

/** 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.code === 404 || e.reason === 'NotFound');
}

/** 429 TooManyRequests. */
export function isTooManyRequests(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.code === 429 || e.reason === 'TooManyRequests');
}

/** Seconds the server asked us to wait (`Retry-After` or `details.retryAfterSeconds`), if any. */
export function retryAfter(err: unknown): number | undefined {
  return asApiError(err)?.retryAfterSeconds;
}
