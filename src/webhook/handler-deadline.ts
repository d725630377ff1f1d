import type { SchedulerLike } from 'rxjs';

/**
 * Runs `work` with a deadline on `scheduler`: resolves or rejects as `work` does, or rejects with
 * `timeoutError()` after `timeoutMs` (and aborts the signal `work` got, with that error as reason).
 * `outer` aborting (the client went away, the server stops) aborts `work`'s signal too. `work`
 * throwing synchronously is a rejection.
 */
export function withDeadline<R>(
  work: (signal: AbortSignal) => R | Promise<R>,
  timeoutMs: number,
  scheduler: SchedulerLike,
  timeoutError: () => Error,
  outer?: AbortSignal,
): Promise<R> {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  if (outer?.aborted === true) controller.abort(outer.reason);
  return new Promise<R>((resolve, reject) => {
    let settled = false;
    const timer = scheduler.schedule(() => {
      if (settled) return;
      settled = true;
      outer?.removeEventListener('abort', onOuterAbort);
      const err = timeoutError();
      controller.abort(err);
      reject(err);
    }, timeoutMs);
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      timer.unsubscribe();
      outer?.removeEventListener('abort', onOuterAbort);
      return true;
    };
    new Promise<R>((res) => res(work(controller.signal))).then(
      (value) => finish() && resolve(value),
      (err: unknown) => finish() && reject(err),
    );
  });
}
