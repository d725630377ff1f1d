import { type SchedulerLike, type Subscription, timer } from 'rxjs';

/** The end of the stop procedure's grace period (CR-14). */
export interface ShutdownDeadline {
  /** Resolves when the grace period is over; never with a negative timeout. */
  readonly expired: Promise<void>;
  /** Cancels the timer (once the procedure is done). */
  cancel(): void;
}

/** Starts the grace period: `ms` on `scheduler`'s clock; 0 = next turn; < 0 = never expires. */
export function shutdownDeadline(ms: number, scheduler: SchedulerLike): ShutdownDeadline {
  if (ms < 0) return { expired: new Promise<void>(() => undefined), cancel: () => undefined };
  let subscription: Subscription | undefined;
  const expired = new Promise<void>((resolve) => {
    subscription = timer(ms, scheduler).subscribe(() => resolve());
  });
  return { expired, cancel: () => subscription?.unsubscribe() };
}
