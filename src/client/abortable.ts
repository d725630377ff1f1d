import { Observable } from 'rxjs';

/**
 * Turns a Promise-returning call that takes an `AbortSignal` (as every `ObjectClient` method does)
 * into a cold Observable: subscribing starts the call, unsubscribing aborts it.
 */
export function abortable<T>(call: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    call(controller.signal).then(
      (value) => {
        subscriber.next(value);
        subscriber.complete();
      },
      (err: unknown) => subscriber.error(err),
    );
    return () => controller.abort();
  });
}
