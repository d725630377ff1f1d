import { from, type ObservableInput, Subscription } from 'rxjs';

/**
 * Calls `fire` when `trigger` aborts (an AbortSignal; at once when it already has) or emits
 * (like `takeUntil`'s notifier). Unsubscribe the result to stop listening.
 */
export function onShutdownTrigger(trigger: AbortSignal | ObservableInput<unknown>, fire: () => void): Subscription {
  if (!isAbortSignal(trigger)) return from(trigger).subscribe({ next: () => fire() });
  if (trigger.aborted) {
    fire();
    return Subscription.EMPTY;
  }
  const onAbort = (): void => fire();
  trigger.addEventListener('abort', onAbort, { once: true });
  return new Subscription(() => trigger.removeEventListener('abort', onAbort));
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;
}
