/** A `meta/v1 Status`, the body of every API error and of watch `ERROR` events. */
export interface Status {
  readonly apiVersion?: string;
  readonly kind?: 'Status' | string;
  readonly status?: 'Success' | 'Failure' | string;
  readonly message?: string;
  /** Machine-readable reason: `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, `Gone`, `Expired`, … */
  readonly reason?: string;
  readonly code?: number;
  readonly details?: StatusDetails;
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

/** `Status.details`. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** One cause inside `Status.details.causes`. */
export interface StatusCause {
  /** The cause type (`FieldValueRequired`, `ResourceVersionTooLarge`, …); kube-apiserver names this field `reason`. */
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** True when `value` looks like a `Status` object. */
export function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}
