import type { KubeObject } from '../api/kube-object.js';
import { type ConfigErrorOptions, type ErrorLayer, markConfigError, RxkubeError } from '../api/rxkube-error.js';
import type { InformerEvent } from '../cache/informer-event.js';

/** Base class of informer errors. */
export class InformerError extends RxkubeError {
  static override readonly code: string = 'INFORMER_ERROR';
  static override readonly layer: ErrorLayer = 'informer';
  override readonly name: string = 'InformerError';
}

/**
 * Bad informer or subscriber options (negative periods, unknown names, …). An InformerError and,
 * through `markConfigError`, a `ConfigError`: `option` names the field when known.
 */
export class InformerConfigError extends InformerError {
  static override readonly code: string = 'INFORMER_CONFIG_INVALID';
  override readonly name = 'InformerConfigError';
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

/** An operation that is only allowed before the informer starts (no built-in operation throws it now: indexes back-fill). */
export class InformerStartedError extends InformerError {
  static override readonly code: string = 'INFORMER_ALREADY_STARTED';
  override readonly name = 'InformerStartedError';
}

/**
 * A subscriber's `process` step threw or errored. The subscriber is unsubscribed alone (its
 * `events$` errors with this error) and the error is reported on the informer's `errors$`.
 */
export class ListenerError<T extends KubeObject = KubeObject> extends InformerError {
  static override readonly code: string = 'INFORMER_LISTENER_FAILED';
  override readonly name = 'ListenerError';
  constructor(
    readonly listener: string,
    readonly event: InformerEvent<T>,
    override readonly cause: unknown,
  ) {
    super(`informer subscriber ${listener} failed on ${event.type}: ${String(cause instanceof Error ? cause.message : cause)}`);
  }
}

/** The event source of the informer (the reflector) ended with an error. */
export class InformerSourceError extends InformerError {
  static override readonly code: string = 'INFORMER_SOURCE_FAILED';
  override readonly name = 'InformerSourceError';
  constructor(
    readonly informer: string,
    override readonly cause: unknown,
  ) {
    super(`informer ${informer}: source failed: ${String(cause instanceof Error ? cause.message : cause)}`);
  }
}
