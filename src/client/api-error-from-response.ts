import { isStatus, type Status } from '../api/status.js';
import { redactSecrets, redactSecretsDeep } from '../logging/known-secrets.js';
import { ApiError, REASON_OF_STATUS } from './api-error.js';
import type { ResponseBodyShape } from './api-error-advice.js';
import type { ApiRequestContext } from './api-request-context.js';

/**
 * Parses a `Retry-After` header: delta seconds, or an HTTP date (relative to `nowMs`). Returns
 * whole seconds (at least 0), or undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Options of {@link apiErrorFromResponse}. */
export interface ApiErrorFromResponseOptions {
  /** Now, to turn a `Retry-After` date into seconds. */
  readonly nowMs: number;
  /** Credentials of this request, masked wherever the answer quotes them. */
  readonly secrets?: readonly string[];
  /** The request answered (server, method, path, identity): named in the error and its hint. */
  readonly request?: ApiRequestContext;
}

const HTML = /^\s*<(!doctype\s+html|html|head|body|title|\?xml)\b/i;
const TITLE = /<title[^>]*>([^<]{0,300})<\/title>/i;

/** What `body` is: a Status, other JSON, an HTML page, plain text or nothing. */
export function bodyShapeOf(body: string, contentType: string | undefined, json: unknown): ResponseBodyShape {
  if (isStatus(json)) return 'status';
  if (body.trim() === '') return 'empty';
  if (json !== undefined) return 'json';
  if (/\bhtml\b/i.test(contentType ?? '') || HTML.test(body)) return 'html';
  return 'text';
}

/** An HTML page in a few words: its title, not its markup. */
function htmlSummary(html: string): string {
  const title = TITLE.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? `an HTML page titled ${JSON.stringify(title)}` : 'an HTML page';
}

/** `request` with `secrets` masked in its server and path (the connection's own fields, printed in the error). */
function redactedRequest(request: ApiRequestContext, secrets: readonly string[]): ApiRequestContext {
  return { ...request, server: redactSecrets(request.server, secrets), path: redactSecrets(request.path, secrets) };
}

/**
 * Builds the {@link ApiError} for a non-2xx response. The body is used as the Status when it is
 * one; otherwise a Status is synthesized from the code, with the body text (shortened; an HTML
 * page's title) as message, and the error's `bodyShape` says what it was. `secrets`, and every
 * credential in use (`known-secrets.ts`), are masked in every string of the Status, so a server
 * or proxy echoing a token cannot leak it.
 */
export function apiErrorFromResponse(
  code: number,
  body: string,
  headers: { readonly [name: string]: string | readonly string[] | undefined },
  options: ApiErrorFromResponseOptions,
): ApiError {
  let status: Status | undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
    if (isStatus(json)) status = wellTypedStatus(json);
  } catch {
    // not JSON: synthesize below
  }
  const contentType = headers['content-type'];
  const shape = bodyShapeOf(body, Array.isArray(contentType) ? contentType[0] : (contentType as string | undefined), json);
  if (status === undefined) {
    // mask before cutting, so that a credential straddling the cut leaves nothing behind
    const cut = redactSecrets(body.length > 4000 ? body.slice(0, 4000) : body, options.secrets).trim();
    const text = shape === 'html' ? htmlSummary(cut) : cut;
    status = {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      code,
      reason: REASON_OF_STATUS[code] ?? (code >= 500 ? 'InternalError' : 'Unknown'),
      message: text === '' ? `the server responded with HTTP ${code}` : text.length > 500 ? `${text.slice(0, 500)}…` : text,
    };
  }
  status = redactSecretsDeep(status, options.secrets ?? []);
  const retryAfterSeconds = parseRetryAfter(headers['retry-after'], options.nowMs);
  return new ApiError(status, {
    code,
    bodyShape: shape,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(options.request === undefined ? {} : { request: redactedRequest(options.request, options.secrets ?? []) }),
  });
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const plainObject = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/**
 * A Status from untrusted JSON (an error body, a watch ERROR object, which may also be null or
 * missing) with every field of the wrong type dropped, so the typed fields of {@link ApiError} and the predicates over it
 * (`isTooLargeResourceVersion` reads `details.causes`) can rely on their types.
 */
export function wellTypedStatus(value: unknown): Status {
  const v = plainObject(value) ?? {};
  const details = plainObject(v.details);
  const meta = plainObject(v.metadata);
  const retry = details?.retryAfterSeconds;
  return defined<Status>({
    apiVersion: str(v.apiVersion),
    kind: str(v.kind),
    status: str(v.status),
    message: str(v.message),
    reason: str(v.reason),
    code: typeof v.code === 'number' && Number.isSafeInteger(v.code) ? v.code : undefined,
    details:
      details === undefined
        ? undefined
        : defined({
            name: str(details.name),
            group: str(details.group),
            kind: str(details.kind),
            uid: str(details.uid),
            causes: Array.isArray(details.causes)
              ? details.causes.flatMap((c: unknown) => {
                  const o = plainObject(c);
                  return o === undefined ? [] : [defined({ reason: str(o.reason), message: str(o.message), field: str(o.field) })];
                })
              : undefined,
            retryAfterSeconds: typeof retry === 'number' && Number.isSafeInteger(retry) && retry >= 0 ? retry : undefined,
          }),
    metadata: meta === undefined ? undefined : defined({ resourceVersion: str(meta.resourceVersion), continue: str(meta.continue) }),
  });
}
