import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** The parts of `process` the signal handler uses (injectable for tests). */
export interface SignalSource {
  on(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  removeListener(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
}

/** Options of {@link setupSignalHandler}. */
export interface SignalHandlerOptions {
  /** Default: the real `process`. */
  readonly process?: SignalSource;
  /** Called on the second signal. Default `process.exit`. */
  readonly exit?: (code: number) => void;
  /** Exit code on the second signal. Default 1. */
  readonly exitCode?: number;
  /**
   * A repeat within this many ms of the first signal is not a second signal but a copy of it: a
   * Ctrl-C reaches the whole process group, and wrappers such as `npm start` or `tsx` forward it
   * to their child again, often within milliseconds. Default 1000; 0 counts every repeat.
   */
  readonly repeatWindowMs?: number;
  /** The clock of `repeatWindowMs`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** A handle on installed SIGTERM/SIGINT listeners. */
export interface SignalHandler {
  /** Aborts on the first SIGTERM or SIGINT; pass it to `manager.start`. */
  readonly signal: AbortSignal;
  /** Removes the listeners. */
  dispose(): void;
}

/**
 * Installs SIGTERM and SIGINT listeners: the first signal aborts `signal` (the manager then stops
 * gracefully within its timeout), a second one exits at once through `exit`. A repeat within
 * `repeatWindowMs` of the first is taken as a forwarded copy of it and ignored.
 */
export function setupSignalHandler(options: SignalHandlerOptions = {}): SignalHandler {
  const source: SignalSource = options.process ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const clock = options.scheduler ?? asyncScheduler;
  const windowMs = options.repeatWindowMs ?? 1_000;
  const controller = new AbortController();
  let firstAt = 0;
  const onSignal = () => {
    if (!controller.signal.aborted) {
      firstAt = clock.now();
      controller.abort(new Error('received termination signal'));
    } else if (clock.now() - firstAt >= windowMs) exit(options.exitCode ?? 1);
  };
  source.on('SIGTERM', onSignal);
  source.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      source.removeListener('SIGTERM', onSignal);
      source.removeListener('SIGINT', onSignal);
    },
  };
}
