/** A watch closed less than a second after it started without delivering any event (RE-10). */
export class VeryShortWatchError extends Error {
  override readonly name = 'VeryShortWatchError';
  constructor(
    readonly durationMs: number,
    readonly resourceVersion: string,
  ) {
    super(`very short watch: closed after ${durationMs}ms with no events (resourceVersion ${resourceVersion})`);
  }
}

/** A watch stayed open and silent past its `timeoutSeconds` plus the stall margin (or the idle timeout). */
export class WatchStalledError extends Error {
  override readonly name = 'WatchStalledError';
  constructor(
    readonly silentMs: number,
    readonly resourceVersion: string,
  ) {
    super(`watch stalled: no data for ${silentMs}ms past its deadline (resourceVersion ${resourceVersion})`);
  }
}

/** A watch event the reflector could not use (no metadata, a Table, …); it was skipped. */
export class UnusableWatchEventError extends Error {
  override readonly name = 'UnusableWatchEventError';
  constructor(
    message: string,
    readonly event: unknown,
  ) {
    super(message);
  }
}

/** Invalid `listWatch` options; the stream errors with it at subscribe. */
export class ReflectorConfigError extends Error {
  override readonly name = 'ReflectorConfigError';
}

/** An error the reflector does not recover from (401/403 after retries, a fatal transport error). */
export class ReflectorFatalError extends Error {
  override readonly name = 'ReflectorFatalError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
