import type { Server as HttpServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * Stops an HTTP(S) server the way Go's `http.Server.Shutdown` does, with a bound:
 *
 * 1. stop listening and close the connections that are idle;
 * 2. answer the requests in flight, and every request still arriving on an open keep-alive
 *    connection, with `Connection: close`, so each connection ends after its answer (a client that
 *    keeps a connection busy, as kube-apiserver does with its webhooks, would otherwise hold the
 *    server open for ever: `server.close()` alone waits for it);
 * 3. after `drainMs`, destroy every socket still open (a request body that never ends, a TLS
 *    handshake that never completes) and call `onForced` first, so the requests in flight can be
 *    abandoned.
 */
export interface ServerDrain {
  /** Whether the drain has begun: answers carry `Connection: close` from then on. */
  readonly draining: boolean;
  /** Marks `res` in flight (headers not sent yet); call for every request. */
  track(res: ServerResponse): void;
  /** Begins the drain; `onClosed` runs once every connection ended (at the latest after `drainMs`). */
  begin(onClosed: () => void): void;
}

/** Options of {@link serverDrain}. */
export interface ServerDrainOptions {
  /** Longest wait for the connections to end by themselves before they are destroyed. */
  readonly drainMs: number;
  readonly scheduler: SchedulerLike;
  /** Called once when sockets are destroyed at the deadline, with how many were still open. */
  readonly onForced: (openSockets: number) => void;
}

/** Tracks `server`'s sockets and answers from now on, for {@link ServerDrain.begin}. */
export function serverDrain(server: HttpServer, options: ServerDrainOptions): ServerDrain {
  const sockets = new Set<Socket>();
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  let deadline: Subscription | undefined;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const closeAfterAnswer = (res: ServerResponse): void => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  return {
    get draining() {
      return draining;
    },
    track(res) {
      if (draining) return closeAfterAnswer(res);
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
    },
    begin(onClosed) {
      if (draining) return;
      draining = true;
      for (const res of inFlight) closeAfterAnswer(res);
      inFlight.clear();
      server.close(() => {
        deadline?.unsubscribe();
        onClosed();
      });
      server.closeIdleConnections();
      deadline = options.scheduler.schedule(() => {
        if (sockets.size === 0) return;
        options.onForced(sockets.size);
        for (const socket of sockets) socket.destroy();
      }, options.drainMs);
    },
  };
}
