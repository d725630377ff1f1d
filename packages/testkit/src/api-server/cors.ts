import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiServerConfigError } from './server-errors.js';

/**
 * Cross-origin requests from browser pages (off unless the `cors` option of `startApiServer` is set), as
 * kube-apiserver's `--cors-allowed-origins`: a request whose `Origin` is allowed gets
 * `Access-Control-Allow-Origin` (that origin), `Access-Control-Allow-Credentials`, the methods and
 * headers Kubernetes clients send, and the response headers they read; a preflight (`OPTIONS`
 * with `Access-Control-Request-Method`) is answered 204 before authentication, as a browser sends
 * it without the `Authorization` header.
 */
export interface CorsOptions {
  /**
   * Origins allowed to call the server (`http://localhost:5173`: scheme, host and port, as the
   * browser sends them in `Origin`); `'*'` allows every origin (the origin is echoed back, as
   * credentials are allowed). Matched exactly; at least one is required.
   */
  readonly origins: readonly string[];
  /** Request headers allowed besides the default ones (`Authorization`, `Content-Type`, `Accept`, `X-Requested-With`, `If-Modified-Since`, `X-CSRF-Token` and the `Impersonate-*` headers). */
  readonly allowHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  readonly maxAgeSeconds?: number;
}

/** Methods a preflight allows: every verb of the Kubernetes API. */
export const CORS_ALLOWED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Request headers a preflight allows: kube-apiserver's defaults (`Authorization`, `Content-Type`
 * — merge-patch, apply-patch and protobuf bodies are not CORS-safelisted —, `Accept`,
 * `X-Requested-With`, `If-Modified-Since`, `X-CSRF-Token`) and impersonation.
 */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'Authorization', 'Content-Type', 'Accept', 'X-Requested-With', 'If-Modified-Since', 'X-CSRF-Token',
  'Impersonate-User', 'Impersonate-Group', 'Impersonate-Uid',
];

/**
 * Response headers a page may read besides the safelisted ones: `Retry-After` (429 and 503
 * back-off), `Warning` (deprecations), `Audit-Id`, `Date`.
 */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['Date', 'Retry-After', 'Warning', 'Audit-Id'];

/** What the server does with a request's CORS part. */
export type CorsOutcome = 'answered' | 'continue';

/** Applies a CORS policy to one request: sets the headers; answers preflights. */
export type CorsPolicy = (req: IncomingMessage, res: ServerResponse) => CorsOutcome;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkedOrigin(origin: string): string {
  if (origin === '*') return origin;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) {
    throw new ApiServerConfigError(
      `cors.origins: "${origin}" is not an origin (scheme://host[:port], no path or trailing slash, e.g. http://localhost:5173)`,
      { option: 'cors.origins' },
    );
  }
  return origin;
}

/** Builds the policy of `options`; throws {@link ApiServerConfigError} for an origin or header that cannot be one. */
export function corsPolicy(options: CorsOptions): CorsPolicy {
  if (options.origins.length === 0) throw new ApiServerConfigError('cors.origins: name at least one origin (or "*")', { option: 'cors.origins' });
  const origins = new Set(options.origins.map(checkedOrigin));
  const anyOrigin = origins.has('*');
  for (const h of options.allowHeaders ?? []) {
    if (!TOKEN.test(h)) throw new ApiServerConfigError(`cors.allowHeaders: "${h}" is not a header name`, { option: 'cors.allowHeaders' });
  }
  const maxAge = options.maxAgeSeconds ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new ApiServerConfigError(`cors.maxAgeSeconds must be a non-negative integer, got ${maxAge}`, { option: 'cors.maxAgeSeconds' });
  const allowHeaders = [...new Set([...CORS_ALLOWED_HEADERS, ...(options.allowHeaders ?? [])])].join(', ');
  const allowMethods = CORS_ALLOWED_METHODS.join(', ');
  const exposeHeaders = CORS_EXPOSED_HEADERS.join(', ');

  return (req, res) => {
    // Every answer depends on Origin: caches must not hand one origin's answer to another.
    res.setHeader('Vary', 'Origin');
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (origin === undefined || !(anyOrigin || origins.has(origin))) {
      if (!preflight) return 'continue';
      // Without CORS headers the browser refuses the request; the text says why to whoever looks.
      const text = `origin ${origin ?? '(none)'} is not allowed by the server's CORS origins\n`;
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      req.resume();
      return 'answered';
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Expose-Headers', exposeHeaders);
    if (!preflight) return 'continue';
    res.writeHead(204, {
      'Access-Control-Allow-Methods': allowMethods,
      'Access-Control-Allow-Headers': allowHeaders,
      'Access-Control-Max-Age': String(maxAge),
    });
    res.end();
    req.resume();
    return 'answered';
  };
}
