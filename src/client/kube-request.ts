import type { RetryPolicy } from './retry-policy.js';

/** Query parameters; `undefined` values are left out. */
export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

/** One HTTP request to the API server. */
export interface KubeRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the server URL, e.g. `/api/v1/namespaces/default/pods`. */
  readonly path: string;
  readonly query?: QueryParams;
  /** Sent as JSON (or as is when a string). */
  readonly body?: unknown;
  /** Content type of `body`; default `application/json`. */
  readonly contentType?: string;
  /** `Accept` header; default `application/json` (e.g. a `;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` view). */
  readonly accept?: string;
}

/** Per-request options of `ApiConnection.request`. */
export interface RequestOptions {
  /** Overrides the connection's retry policy for this request; `false`: no retries. */
  readonly retry?: RetryPolicy | false;
  /**
   * Deadline of each attempt of this request, in ms (from sending it to the end of its answer);
   * overrides the connection's `requestTimeoutMs`. 0: none.
   */
  readonly timeoutMs?: number;
}

/** Options of `ApiConnection.stream`. */
export interface StreamOptions {
  /**
   * Time the server has to send the response headers, in ms; for a non-watch stream (a list) also
   * the longest gap between two chunks of its body. Default the connection's `requestTimeoutMs`;
   * 0: none. A watch's body has no timeout here (its lifetime is `timeoutSeconds`, its liveness the
   * reflector's concern).
   */
  readonly timeoutMs?: number;
}

/** The request's method (`GET` when it names none). */
export function methodOf(request: KubeRequest): string {
  return request.method ?? 'GET';
}

/** True for a watch request (`watch=true` in its query). */
export function isWatchRequest(request: KubeRequest): boolean {
  return request.query?.['watch'] === true || request.query?.['watch'] === 'true';
}

/** `path` below the server URL's own path `prefix` (e.g. `/k8s` of `https://host/k8s`). */
export function joinPath(prefix: string, path: string): string {
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return `${base}${path.startsWith('/') ? path : `/${path}`}`;
}

/** Encodes query parameters (`undefined` left out) as `?a=1&b=2`, or '' when none. */
export function queryString(query: QueryParams | undefined): string {
  if (query === undefined) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}
