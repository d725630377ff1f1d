import type { TimerHandle } from 'rxjs/internal/scheduler/timerHandle';

/** A set/clear pair of timer functions, as RxJS's timer providers take them. */
export interface TimerPair<A extends unknown[]> {
  readonly set: (...args: A) => TimerHandle;
  readonly clear: (handle: TimerHandle) => void;
}

/**
 * Routes timers set while virtual time runs to the virtual clock, and a clear to whichever clock
 * set the handle: a real-time RxJS timer started before {@link virtualTime} (a periodic action
 * another test left running, in a test run that shares one process between files) and cancelled
 * during it is cleared on the real clock. Without this the virtual clock ignored the foreign handle,
 * the real interval kept firing its cancelled action, and RxJS threw "executing a cancelled
 * action" on every tick, into whatever test ran next.
 */
export function routeTimerClears<A extends unknown[]>(virtual: TimerPair<A>, realClear: (handle: TimerHandle) => void): TimerPair<A> {
  const virtualHandles = new Set<TimerHandle>();
  return {
    set: (...args) => {
      const handle = virtual.set(...args);
      virtualHandles.add(handle);
      return handle;
    },
    clear: (handle) => (virtualHandles.delete(handle) ? virtual.clear(handle) : realClear(handle)),
  };
}
