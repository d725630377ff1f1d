import type { Observable } from 'rxjs';
import { defer, of, throwError } from 'rxjs';
import { ApiError } from '../../src/client/api-error.js';
import type { CoreEvent, EventPatch } from '../../src/events/core-event.js';
import type { EventsApi } from '../../src/events/events-api.js';

/** An in-memory EventsApi that records calls and can be told to fail the next calls. */
export function fakeEventsApi() {
  const store = new Map<string, CoreEvent>();
  const calls: string[] = [];
  const failures: unknown[] = [];
  let rv = 0;
  const key = (ns: string, name: string) => `${ns}/${name}`;
  const maybeFail = (): Observable<never> | undefined => {
    const f = failures.shift();
    return f === undefined ? undefined : throwError(() => f);
  };
  const api: EventsApi = {
    create: (ns, event) =>
      defer(() => {
        calls.push(`create ${ns}/${event.metadata.name} count=${event.count}`);
        const fail = maybeFail();
        if (fail) return fail;
        if (store.has(key(ns, event.metadata.name))) {
          return throwError(() => new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409, message: 'exists' }));
        }
        const saved = { ...event, metadata: { ...event.metadata, resourceVersion: String(++rv) } };
        store.set(key(ns, event.metadata.name), saved);
        return of(saved);
      }),
    patch: (ns, name, patch: EventPatch) =>
      defer(() => {
        calls.push(`patch ${ns}/${name} count=${patch.count}`);
        const fail = maybeFail();
        if (fail) return fail;
        const existing = store.get(key(ns, name));
        if (!existing) {
          return throwError(() => new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));
        }
        const saved = { ...existing, ...patch, metadata: { ...existing.metadata, resourceVersion: String(++rv) } };
        store.set(key(ns, name), saved);
        return of(saved);
      }),
  };
  return { api, store, calls, failures, events: () => [...store.values()] };
}
