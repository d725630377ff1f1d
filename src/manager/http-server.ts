import type { AddressInfo } from 'node:net';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createServer } from 'node:http';

/** Options of {@link httpServerRunnable}. */
export interface HttpServerOptions {
  /** Name used in errors and logs (`metrics`, `health probes`, …). */
  readonly name: string;
  /** Interface to bind; default `0.0.0.0`. */
  readonly host?: string;
  /** Port to bind; 0 picks a free port (read it from `listening`). */
  readonly port: number;
  readonly handler: RequestListener;
  /** When true the server runs only while this manager leads (CR-12). Default false. */
  readonly needLeaderElection?: boolean;
}

/** A runnable `node:http` server; the manager starts these first and stops them last (CR-13, CR-14). */
export interface HttpServerRunnable {
  readonly isHttpServer: true;
  readonly name: string;
  readonly needLeaderElection: boolean;
  /** Listens, then resolves once `signal` aborts and the server has closed; rejects if it cannot listen. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves with the bound address once listening (rejects if listening fails). */
  readonly listening: Promise<AddressInfo>;
}

/** Wraps a request handler in an {@link HttpServerRunnable}. */
export function httpServerRunnable(options: HttpServerOptions): HttpServerRunnable {
  let resolveListening!: (a: AddressInfo) => void;
  let rejectListening!: (e: unknown) => void;
  const listening = new Promise<AddressInfo>((res, rej) => {
    resolveListening = res;
    rejectListening = rej;
  });
  listening.catch(() => undefined);
  return {
    isHttpServer: true,
    name: options.name,
    needLeaderElection: options.needLeaderElection ?? false,
    listening,
    start(signal) {
      return new Promise<void>((resolve, reject) => {
        const server = createServer((req: IncomingMessage, res: ServerResponse) => {
          try {
            options.handler(req, res);
          } catch (err) {
            if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
            res.end(`internal server error: ${err instanceof Error ? err.message : String(err)}\n`);
          }
        });
        const close = () => {
          server.close(() => resolve());
          server.closeAllConnections();
        };
        server.once('error', (err) => {
          const wrapped = new Error(`${options.name} server failed: ${err.message}`, { cause: err });
          rejectListening(wrapped);
          reject(wrapped);
        });
        if (signal.aborted) {
          rejectListening(new Error(`${options.name} server stopped before listening`));
          resolve();
          return;
        }
        server.listen(options.port, options.host ?? '0.0.0.0', () => {
          resolveListening(server.address() as AddressInfo);
          if (signal.aborted) close();
          else signal.addEventListener('abort', close, { once: true });
        });
      });
    },
  };
}
