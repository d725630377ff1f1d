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
 * gracefully within its timeout), a second one exits at once through `exit`.
 */
export function setupSignalHandler(options: SignalHandlerOptions = {}): SignalHandler {
  const source: SignalSource = options.process ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  const onSignal = () => {
    if (!controller.signal.aborted) controller.abort(new Error('received termination signal'));
    else exit(options.exitCode ?? 1);
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
