// The connection phases of a Node.js request (TCP connect, TLS handshake), bounded on a scheduler:
// KubeConnection's. The request deadlines both transports use are in request-deadline.ts.
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { RequestTimeoutPhase } from './request-timeout-error.js';

/**
 * Bounds the connection phase of `req`: when it gets a new socket, the TCP connection must be open
 * within `connectMs` and (for TLS) the handshake done within `tlsMs` after that; otherwise
 * `fail(phase, ms)` is called (which destroys the request). A reused keep-alive socket is already
 * connected and costs nothing. Timers run on `scheduler` and are cancelled as soon as the phase
 * ends or the socket closes.
 */
export function boundConnection(
  req: http.ClientRequest,
  scheduler: SchedulerLike,
  connectMs: number,
  tlsMs: number,
  tls: boolean,
  fail: (phase: RequestTimeoutPhase, ms: number) => void,
): void {
  req.once('socket', (socket: Socket) => {
    const connecting = socket.connecting;
    const needsHandshake = tls && !(socket as Socket & { encrypted?: boolean; _secureEstablished?: boolean })._secureEstablished;
    if (!connecting && !needsHandshake) return;
    let timer: Subscription | undefined;
    const arm = (phase: RequestTimeoutPhase, ms: number): void => {
      timer?.unsubscribe();
      timer = ms > 0 && Number.isFinite(ms) ? scheduler.schedule(() => fail(phase, ms), ms) : undefined;
    };
    const done = (): void => {
      timer?.unsubscribe();
      timer = undefined;
    };
    socket.once('close', done);
    if (tls) socket.once('secureConnect', done);
    if (connecting) {
      arm('connect', connectMs);
      socket.once('connect', () => (tls ? arm('tlsHandshake', tlsMs) : done()));
    } else {
      arm('tlsHandshake', tlsMs);
    }
  });
}
