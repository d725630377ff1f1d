// Deadlines and quiet-gap timers of a request, on a scheduler: shared by the Node.js transport
// (KubeConnection) and the fetch transport (FetchConnection), so nothing here names a Node.js type
// (a browser project type-checks this module; Node's socket phases are in request-timeouts.ts).
import type { SchedulerLike, Subscription } from 'rxjs';

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
