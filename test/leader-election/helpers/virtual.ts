import { type Observable, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { LeaseLock } from '../../../src/leader-election/lease-lock.js';
import { InMemoryLeaseApi, type LeaseRequest } from '../../../src/testing/in-memory-lease-api.js';
import { LEASE_REF } from './harness.js';

/** A virtual-time scheduler, an in-memory lease API on it, and a request log. */
export function virtualLeaseWorld() {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  const requests: LeaseRequest[] = [];
  const api = new InMemoryLeaseApi({
    scheduler,
    fault: (request) => {
      requests.push(request);
      return undefined;
    },
  });
  const lock = (id: string) => new LeaseLock(api.client(id), LEASE_REF, id);
  /** Runs virtual time to absolute `t`. */
  const runUntil = (t: number): void => {
    scheduler.maxFrames = t;
    scheduler.flush();
    scheduler.frame = Math.max(scheduler.frame, t);
  };
  /** Subscribes, runs virtual time until nothing is pending, returns the last value (throws on error). */
  const result = <T>(source: Observable<T>): T => {
    let value: { v: T } | undefined;
    let error: { e: unknown } | undefined;
    source.subscribe({ next: (v) => (value = { v }), error: (e: unknown) => (error = { e }) });
    scheduler.maxFrames = scheduler.frame + 60_000;
    scheduler.flush();
    if (error !== undefined) throw error.e;
    if (value === undefined) throw new Error('no value');
    return value.v;
  };
  /** Sets the stored lease spec directly (as another writer would), via the API. */
  const seed = (spec: Record<string, unknown>): void => {
    const existing = api.peek(LEASE_REF);
    if (existing === undefined) {
      result(api.create({ metadata: { name: LEASE_REF.name, namespace: LEASE_REF.namespace }, spec }));
    } else {
      result(api.update({ ...existing, spec }));
    }
  };
  return { scheduler, api, requests, lock, runUntil, result, seed };
}
