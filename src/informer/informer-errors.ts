import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';

/** Base class of informer errors. */
export class InformerError extends Error {
  override readonly name: string = 'InformerError';
}

/** Bad informer or subscriber options (negative periods, unknown names, …). */
export class InformerConfigError extends InformerError {
  override readonly name = 'InformerConfigError';
}

/** An operation that is only allowed before the informer starts (no built-in operation throws it now: indexes back-fill). */
export class InformerStartedError extends InformerError {
  override readonly name = 'InformerStartedError';
}

/**
 * A subscriber's `process` step threw or errored. The subscriber is unsubscribed alone (its
 * `events$` errors with this error) and the error is reported on the informer's `errors$`.
 */
export class ListenerError<T extends KubeObject = KubeObject> extends InformerError {
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
  override readonly name = 'InformerSourceError';
  constructor(
    readonly informer: string,
    override readonly cause: unknown,
  ) {
    super(`informer ${informer}: source failed: ${String(cause instanceof Error ? cause.message : cause)}`);
  }
}
