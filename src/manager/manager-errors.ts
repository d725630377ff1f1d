import { ConfigError, type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';
import { LeadershipLostError } from '../leader-election/leadership-lost-error.js';

/** `start` was called a second time (CR-13). */
export class ManagerAlreadyStartedError extends RxkubeError {
  static override readonly code: string = 'MANAGER_ALREADY_STARTED';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'ManagerAlreadyStartedError';
  constructor() {
    super('manager already started');
  }
}

/** A runnable or check was added once the stop procedure had begun (CR-14). */
export class StopEngagedError extends RxkubeError {
  static override readonly code: string = 'MANAGER_STOPPING';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'StopEngagedError';
  constructor() {
    super("can't accept new runnable as stop procedure is already engaged");
  }
}

/**
 * A controller was added to a manager that already runs a controller of the same name: both would
 * report to the same `controller` metric labels. Names are unique per manager, not per process.
 */
export class DuplicateControllerNameError extends RxkubeError {
  static override readonly code: string = 'MANAGER_DUPLICATE_CONTROLLER_NAME';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'DuplicateControllerNameError';
  constructor(
    /** The controller's name. */
    readonly controller: string,
    /** The manager: its leader-election id, or `manager` without leader election. */
    readonly manager: string,
  ) {
    super(
      `${manager}: a controller named ${controller} was already added; controller names must be unique within a manager (they label its metrics): give one of them another name`,
    );
  }
}

/** A health or readiness check was added after the endpoint was created (CR-15). */
export class CheckerAfterStartError extends RxkubeError {
  static override readonly code: string = 'MANAGER_CHECKER_AFTER_START';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'CheckerAfterStartError';
  constructor() {
    super('unable to add new checker because healthz endpoint has already been created');
  }
}

/**
 * This manager lost (or could not keep) leadership; its controllers were stopped (CR-14) and
 * fenced: a {@link LeadershipLostError}, the reason their stop signal aborted with.
 */
export class LeaderElectionLostError extends LeadershipLostError {
  static override readonly code: string = 'MANAGER_LEADERSHIP_LOST';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name: string = 'LeaderElectionLostError';
  constructor(options?: ErrorOptions) {
    super('leader election lost', options);
  }
}

/** Runnables did not end within the graceful shutdown timeout (CR-14). */
export class GracefulShutdownTimeoutError extends RxkubeError {
  static override readonly code: string = 'MANAGER_SHUTDOWN_TIMEOUT';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'GracefulShutdownTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`failed waiting for all runnables to end within grace period of ${formatDuration(timeoutMs)}`);
  }
}

/** A cache runnable reported that it could not sync. */
export class CacheSyncError extends RxkubeError {
  static override readonly code: string = 'MANAGER_CACHE_SYNC_FAILED';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'CacheSyncError';
  constructor(readonly runnable: string) {
    super(`failed to wait for caches to sync: ${runnable}`);
  }
}

/** Invalid manager options (e.g. leader election without an id); `option` names the field when known. */
export class ManagerConfigError extends ConfigError {
  static override readonly code: string = 'MANAGER_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'ManagerConfigError';
}

/** Formats milliseconds the way Go prints durations for the common cases (`30s`, `1.5s`, `250ms`). */
export function formatDuration(ms: number): string {
  if (ms >= 1000) return `${Number((ms / 1000).toFixed(3))}s`;
  return `${ms}ms`;
}

/**
 * The manager's caches did not all sync within `cacheSyncTimeoutMs` (default 2 minutes): `start()`
 * rejects with this error instead of waiting forever. The message names every informer that had
 * not synced, its server and its last list/watch error (an unreachable server, a kind the server
 * does not serve, 403 Forbidden, …); `unsynced` has the same as data.
 */
export class ManagerCacheSyncTimeoutError extends RxkubeError {
  static override readonly code: string = 'MANAGER_CACHE_SYNC_TIMEOUT';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'ManagerCacheSyncTimeoutError';

  constructor(
    readonly timeoutMs: number,
    /** One line per informer (or cache runnable) that had not synced. */
    readonly unsynced: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`caches did not sync within ${formatDuration(timeoutMs)}: ${unsynced.join('; ') || 'no detail'}`, options);
  }
}

/**
 * An error escaped asynchronously while the manager ran — thrown in a timer or left as an
 * unhandled rejection — and the manager stopped gracefully instead of letting the process die at
 * once. When it came from a reconcile (or anything the reconcile started), `controller`, `key`
 * and `reconcileId` name it. `cause` is the escaped error.
 */
export class UncaughtError extends RxkubeError {
  static override readonly code: string = 'MANAGER_UNCAUGHT_ERROR';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'UncaughtError';
  constructor(
    /** `uncaughtException` or `unhandledRejection`. */
    readonly origin: 'uncaughtException' | 'unhandledRejection',
    readonly scope: { readonly controller: string; readonly key: string; readonly reconcileId: string } | undefined,
    options?: ErrorOptions,
  ) {
    const what = origin === 'uncaughtException' ? 'an uncaught exception' : 'an unhandled rejection';
    const where = scope === undefined ? '' : ` from the reconcile of ${scope.key} (controller ${scope.controller}, reconcileID ${scope.reconcileId})`;
    const cause = options?.cause;
    super(`${what}${where} stopped the manager: ${cause instanceof Error ? cause.message : String(cause)}`, options);
  }

  get controller(): string | undefined {
    return this.scope?.controller;
  }

  get key(): string | undefined {
    return this.scope?.key;
  }
}
