import { ConfigError, RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/** A watch closed less than a second after it started without delivering any event (RE-10). */
export class VeryShortWatchError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_WATCH_TOO_SHORT';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'VeryShortWatchError';
  constructor(
    readonly durationMs: number,
    readonly resourceVersion: string,
  ) {
    super(`very short watch: closed after ${durationMs}ms with no events (resourceVersion ${resourceVersion})`);
  }
}

/** A watch stayed open and silent past its `timeoutSeconds` plus the stall margin (or the idle timeout). */
export class WatchStalledError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_WATCH_STALLED';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'WatchStalledError';
  constructor(
    readonly silentMs: number,
    readonly resourceVersion: string,
  ) {
    super(`watch stalled: no data for ${silentMs}ms past its deadline (resourceVersion ${resourceVersion})`);
  }
}

/** A watch event the reflector could not use (no metadata, a Table, …); it was skipped. */
export class UnusableWatchEventError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_WATCH_EVENT_UNUSABLE';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'UnusableWatchEventError';
  constructor(
    message: string,
    readonly event: unknown,
  ) {
    super(message);
  }
}

/** Invalid `listWatch` options; the stream errors with it at subscribe. `option` names the field. */
export class ReflectorConfigError extends ConfigError {
  static override readonly code: string = 'REFLECTOR_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ReflectorConfigError';
}

/** An error the reflector does not recover from (401/403 after retries, a fatal transport error). */
export class ReflectorFatalError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_FATAL';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ReflectorFatalError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
