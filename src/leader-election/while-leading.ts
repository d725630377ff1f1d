import { distinctUntilChanged, EMPTY, type Observable, switchMap } from 'rxjs';

/**
 * Runs `work()` while `leading$` says true and unsubscribes from it the moment leadership is lost
 * (synchronously, on the `false` emission), starting a fresh `work()` on each new term.
 *
 * ```
 * leading$: f---t-------f---t---
 * work():       a-b-c-     a-b-
 * result:   ----a-b-c---------a-b-
 * ```
 */
export function whileLeading<T>(leading$: Observable<boolean>, work: () => Observable<T>): Observable<T> {
  return leading$.pipe(
    distinctUntilChanged(),
    switchMap((leading) => (leading ? work() : EMPTY)),
  );
}
