/**
 * The common base of every error rxkube throws or emits. Each concrete class declares a static
 * `code` (stable, SCREAMING_SNAKE, unique per class, prefixed by its layer: `CACHE_KEY_INVALID`,
 * `CONTROLLER_CACHE_SYNC_TIMEOUT`, …) and `layer`; every instance carries both as own properties,
 * so `err.code` can be switched on and shows up when the error is printed. `ApiError` is the one
 * class whose instance code varies: `API_<REASON>` from the Status reason. The full table is in
 * `docs/errors.md`.
 */

/** The layer (a folder of `src/`) an error comes from. */
export type ErrorLayer =
  | 'api'
  | 'client'
  | 'reflector'
  | 'cache'
  | 'informer'
  | 'workqueue'
  | 'metrics'
  | 'events'
  | 'leader-election'
  | 'controller'
  | 'webhook'
  | 'manager'
  | 'testing'
  | 'logging'
  /** `create-rxkube`, the project scaffolder (packages/create-rxkube). */
  | 'scaffold';

/**
 * Base class of rxkube's errors. Abstract: it has no code of its own; catch it to tell rxkube's
 * errors from any other, then look at `code`. `cause` is the standard `Error` cause.
 */
export abstract class RxkubeError extends Error {
  /** The code instances of this class carry; each concrete class declares its own. */
  declare static readonly code: string;
  /** The layer this class belongs to. */
  declare static readonly layer: ErrorLayer;

  /** Stable machine-readable code (see `docs/errors.md`). */
  readonly code: string;
  /** The layer the error comes from. */
  readonly layer: ErrorLayer;
  override name: string;

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    const cls = new.target as unknown as { readonly code: string; readonly layer: ErrorLayer };
    this.code = cls.code;
    this.layer = cls.layer;
    // Every subclass also sets its name explicitly (class names do not survive minification).
    this.name = new.target.name;
  }
}

const CONFIG_ERROR: unique symbol = Symbol('rxkube.ConfigError');

/** Options of a {@link ConfigError}: the standard `cause`, and the option that was wrong. */
export interface ConfigErrorOptions extends ErrorOptions {
  /** Path of the offending option, e.g. `concurrency` or `backoff.maxMs`. */
  readonly option?: string;
}

/**
 * Base class of the option and config validation errors (`ManagerConfigError`,
 * `ReflectorConfigError`, `WorkQueueOptionsError`, …). `option` names the offending field when
 * the thrower knows it. `ControllerBuildError` and `InformerConfigError` keep their layer base
 * (`ControllerError`, `InformerError`) as their prototype parent and are ConfigErrors through
 * {@link markConfigError}: `instanceof ConfigError` is true for them too.
 */
export abstract class ConfigError extends RxkubeError {
  /** Path of the option that was wrong (`leaseDurationMs`, `backoff.factor`, …), when known. */
  readonly option: string | undefined;

  constructor(message?: string, options: ConfigErrorOptions = {}) {
    super(message, options);
    this.option = options.option;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    return this === ConfigError && typeof value === 'object' && value !== null && CONFIG_ERROR in value;
  }

  static {
    Object.defineProperty(this.prototype, CONFIG_ERROR, { value: true });
  }
}

/**
 * Makes `instanceof ConfigError` true for a config error class that extends its layer's base
 * instead (call it in the class's static block). The class must carry `option` itself.
 */
export function markConfigError(cls: abstract new (...args: never[]) => RxkubeError & { readonly option: string | undefined }): void {
  Object.defineProperty(cls.prototype, CONFIG_ERROR, { value: true });
}
