import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { HealthCheck } from './healthz-handler.js';
import { serveHealthz, type ServeHealthzOptions } from './healthz-handler.js';

/** A route table entry: requests whose path is `prefix` or starts with `prefix/`. */
export type Route = readonly [prefix: string, handler: (req: IncomingMessage, res: ServerResponse, subPath: string, query: URLSearchParams) => void];

/** A request listener dispatching to the longest matching route prefix; 404 otherwise. */
export function routes(table: readonly Route[]): RequestListener {
  const sorted = [...table].sort((a, b) => b[0].length - a[0].length);
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    for (const [prefix, handler] of sorted) {
      if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
        handler(req, res, url.pathname.slice(prefix.length), url.searchParams);
        return;
      }
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
  };
}

/** A route serving {@link serveHealthz} for `checks` under `prefix` (e.g. `/readyz`). */
export function healthzRoute(prefix: string, checks: ReadonlyMap<string, HealthCheck>, options: ServeHealthzOptions = {}): Route {
  return [
    prefix,
    (_req, res, subPath, query) => {
      serveHealthz(checks, subPath, query, options).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`internal server error: ${String(err)}\n`);
        },
      );
    },
  ];
}

/** A route serving the Prometheus exposition produced by `text()` under `prefix` (e.g. `/metrics`). */
export function metricsRoute(prefix: string, text: () => Promise<string>, contentType: string): Route {
  return [
    prefix,
    (_req, res) => {
      text().then(
        (body) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(`error gathering metrics: ${String(err)}\n`);
        },
      );
    },
  ];
}
