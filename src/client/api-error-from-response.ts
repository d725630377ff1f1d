import { isStatus, type Status } from '../api/status.js';
import { ApiError } from './api-error.js';

/** The HTTP reason each status code maps to when the body is not a `Status` (as apimachinery does). */
const REASONS: Readonly<Record<number, string>> = {
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

/**
 * Parses a `Retry-After` header: delta seconds, or an HTTP date (relative to `nowMs`). Returns
 * whole seconds (at least 0), or undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * Builds the {@link ApiError} for a non-2xx response. The body is used as the Status when it is
 * one; otherwise a Status is synthesized from the code, with the body text (shortened) as message.
 * `secrets` are replaced by `[redacted]` in the message, so a proxy echoing a token cannot leak it.
 */
export function apiErrorFromResponse(
  code: number,
  body: string,
  headers: { readonly [name: string]: string | readonly string[] | undefined },
  options: { readonly nowMs: number; readonly secrets?: readonly string[] },
): ApiError {
  let status: Status | undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isStatus(parsed)) status = parsed;
  } catch {
    // not JSON: synthesize below
  }
  if (status === undefined) {
    const text = body.trim();
    status = {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      code,
      reason: REASONS[code] ?? (code >= 500 ? 'InternalError' : 'Unknown'),
      message: text === '' ? `the server responded with HTTP ${code}` : text.length > 500 ? `${text.slice(0, 500)}…` : text,
    };
  }
  status = redactStatus(status, options.secrets ?? []);
  const retryAfterSeconds = parseRetryAfter(headers['retry-after'], options.nowMs);
  return new ApiError(status, retryAfterSeconds === undefined ? { code } : { code, retryAfterSeconds });
}

function redactStatus(status: Status, secrets: readonly string[]): Status {
  const live = secrets.filter((s) => s.length >= 4);
  if (live.length === 0 || status.message === undefined) return status;
  let message = status.message;
  for (const s of live) message = message.split(s).join('[redacted]');
  return message === status.message ? status : { ...status, message };
}
