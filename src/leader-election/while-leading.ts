import { distinctUntilChanged, EMPTY, type Observable, switchMap } from 'rxjs';

/**
 * Runs `work()` while `leading$` says true and unsubscribes from it the moment leadership is lost
 * (synchronously, on the `false` emission), starting a fresh `work()` on each new term.
 *
 * ```
 * leading$: f---t------f----t-----
 * work():       a-b-c-d-e-f          (cold, subscribed anew on each term)
 * result:   ----a-b-c-d-----a-b-c-
 *               ^------!    ^----      (work subscriptions)
 * ```
 */
export function whileLeading<T>(leading$: Observable<boolean>, work: () => Observable<T>): Observable<T> {
  return leading$.pipe(
    distinctUntilChanged(),
    switchMap((leading) => (leading ? work() : EMPTY)),
  );
}
