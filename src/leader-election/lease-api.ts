import type { Observable } from 'rxjs';
import type { Lease } from './lease.js';

/** Which Lease: its namespace and name. */
export interface LeaseRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The three calls leader election makes against the API server, as cold Observables that emit
 * the server's copy of the Lease once and complete (unsubscribing abandons the request).
 * Failures are `ApiError`s: `get` → 404 NotFound when absent; `create` → 409 AlreadyExists;
 * `update` (a PUT carrying `metadata.resourceVersion`) → 409 Conflict when that version is stale.
 */
export interface LeaseApi {
  get(ref: LeaseRef): Observable<Lease>;
  create(lease: Lease): Observable<Lease>;
  update(lease: Lease): Observable<Lease>;
}
