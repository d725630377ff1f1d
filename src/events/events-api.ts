import type { Observable } from 'rxjs';
import type { CoreEvent, EventPatch } from './core-event.js';

/**
 * The two calls an event recorder makes, as cold Observables that emit the server's copy once
 * and complete (unsubscribing abandons the request). Failures: `ApiError` for API answers (a 404
 * on `patch` makes the recorder create the event afresh), anything else for transport errors
 * (retried).
 */
export interface EventsApi {
  create(namespace: string, event: CoreEvent): Observable<CoreEvent>;
  patch(namespace: string, name: string, patch: EventPatch): Observable<CoreEvent>;
}
