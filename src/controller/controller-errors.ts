import { type ConfigErrorOptions, type ErrorLayer, markConfigError, RxkubeError } from '../api/rxkube-error.js';

/** Base class of the controller package's errors; thrown itself for a controller used wrongly. */
export class ControllerError extends RxkubeError {
  static override readonly code: string = 'CONTROLLER_ERROR';
  static override readonly layer: ErrorLayer = 'controller';
  override name = 'ControllerError';
}

/**
 * A controller definition that cannot work (CR-7): missing `for`/`watches`, `owns` without `for`,
 * no name, … A ControllerError and, through `markConfigError`, a `ConfigError`: `option` names
 * the field when known.
 */
export class ControllerBuildError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_CONFIG_INVALID';
  override name = 'ControllerBuildError';
  /** Path of the option that was wrong, when known. */
  readonly option: string | undefined;

  constructor(message?: string, options: ConfigErrorOptions = {}) {
    super(message, options);
    this.option = options.option;
  }

  static {
    markConfigError(this);
  }
}

/** A controller's `start` was called a second time (CR-5). */
export class ControllerStartedTwiceError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_ALREADY_STARTED';
  override name = 'ControllerStartedTwiceError';
  constructor(readonly controller: string) {
    super(`controller ${controller} was started more than once. This is likely to be caused by being added to a manager multiple times`);
  }
}

/** The caches a controller reads did not sync within `cacheSyncTimeout` (CR-5). */
export class CacheSyncTimeoutError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_CACHE_SYNC_TIMEOUT';
  override name = 'CacheSyncTimeoutError';
  constructor(
    readonly controller: string,
    /** Names of the sources that had not synced. */
    readonly sources: readonly string[],
    readonly timeout: number,
  ) {
    super(`controller ${controller}: timed out waiting for cache to be synced for ${sources.join(', ')} (after ${timeout} ms)`);
  }
}

