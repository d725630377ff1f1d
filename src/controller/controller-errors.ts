/** Base class of the controller package's errors. */
export class ControllerError extends Error {
  override name = 'ControllerError';
}

/** A controller definition that cannot work (CR-7): missing `for`/`watches`, `owns` without `for`, no name, … */
export class ControllerBuildError extends ControllerError {
  override name = 'ControllerBuildError';
}

/** A controller's `start` was called a second time (CR-5). */
export class ControllerStartedTwiceError extends ControllerError {
  override name = 'ControllerStartedTwiceError';
  constructor(readonly controller: string) {
    super(`controller ${controller} was started more than once. This is likely to be caused by being added to a manager multiple times`);
  }
}

/** The caches a controller reads did not sync within `cacheSyncTimeout` (CR-5). */
export class CacheSyncTimeoutError extends ControllerError {
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

