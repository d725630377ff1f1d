import type http from 'node:http';
import type { Socket } from 'node:net';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { RequestTimeoutPhase } from './request-timeout-error.js';

/** Default time to open a TCP connection, in ms (client-go's dialer: 30 s). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default time for a TLS handshake, in ms (client-go's `TLSHandshakeTimeout`: 10 s). */
export const DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
/**
 * Default deadline of a non-watch request, in ms: 60 s, kube-apiserver's own `--request-timeout`
 * (a request the server works on longer than that fails there anyway).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** A deadline: `signal` aborts (with the error `onTimeout` made) when it runs out or `parent` aborts. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Stops the timer (the answer came in time); `signal` still follows `parent`. Idempotent. */
  cancel(): void;
  /** Stops the timer and unlinks `signal` from `parent` (the request is over). Idempotent. */
  release(): void;
}

/**
 * A signal that aborts when `parent` does (with its reason) or after `ms` on `scheduler` (with
 * `onTimeout()`). `ms` of 0 (or less, or not finite) means no deadline: `parent` is returned as is.
 */
export function deadline(scheduler: SchedulerLike, ms: number, parent: AbortSignal | undefined, onTimeout: () => Error): Deadline {
  const controller = new AbortController();
  if (!(ms > 0 && Number.isFinite(ms))) {
    return { signal: parent ?? controller.signal, cancel: () => undefined, release: () => undefined };
  }
  const onParentAbort = (): void => controller.abort(parent?.reason);
  let timer: Subscription | undefined;
  const cancel = (): void => {
    timer?.unsubscribe();
    timer = undefined;
  };
  const release = (): void => {
    cancel();
    parent?.removeEventListener('abort', onParentAbort);
  };
  if (parent?.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, cancel, release };
  }
  parent?.addEventListener('abort', onParentAbort, { once: true });
  timer = scheduler.schedule(() => {
    timer = undefined;
    parent?.removeEventListener('abort', onParentAbort);
    controller.abort(onTimeout());
  }, ms);
  return { signal: controller.signal, cancel, release };
}

/** A quiet-gap timer: see {@link idleTimer}. */
export interface IdleTimer {
  /** Something arrived: the gap starts again. */
  touch(): void;
  /** Stops the timer. Idempotent. */
  stop(): void;
}

/**
 * Calls `onIdle` when `touch()` was not called for `ms` (0, less or not finite: never): one timer
 * per period on `scheduler` (not one per chunk), re-armed for the time left since the last touch.
 */
export function idleTimer(scheduler: SchedulerLike, ms: number, onIdle: () => void): IdleTimer {
  if (!(ms > 0 && Number.isFinite(ms))) return { touch: () => undefined, stop: () => undefined };
  let last = scheduler.now();
  let timer: Subscription | undefined;
  const arm = (delay: number): void => {
    timer = scheduler.schedule(() => {
      const quiet = scheduler.now() - last;
      if (quiet >= ms) {
        timer = undefined;
        onIdle();
      } else arm(ms - quiet);
    }, delay);
  };
  arm(ms);
  return {
    touch: () => {
      last = scheduler.now();
    },
    stop: () => {
      timer?.unsubscribe();
      timer = undefined;
    },
  };
}

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
