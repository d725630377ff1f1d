import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * Wraps an error that retrying cannot fix (controller-runtime's `reconcile.TerminalError`). A
 * reconcile that fails with a terminal error is reported but neither requeued nor forgotten by
 * the rate limiter (CR-1). The wrapped error is kept as `cause`.
 */
export class TerminalError extends RxkubeError {
  static override readonly code: string = 'WORKQUEUE_TERMINAL';
  static override readonly layer: ErrorLayer = 'workqueue';
  override readonly name = 'TerminalError';

  constructor(cause: unknown) {
    super(cause === undefined || cause === null ? 'nil terminal error' : `terminal error: ${messageOf(cause)}`, {
      cause,
    });
  }
}

/**
 * True when `error` or any error in its `cause` chain (or an `AggregateError`'s `errors`) is a
 * {@link TerminalError}.
 */
export function isTerminalError(error: unknown): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [error];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof TerminalError) return true;
    if (e instanceof AggregateError) stack.push(...(e.errors as unknown[]));
    if ('cause' in e) stack.push((e as { cause?: unknown }).cause);
  }
  return false;
}

function messageOf(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
