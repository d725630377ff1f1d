import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from '../../src/client/api-error.js';
import { type Lease } from '../../src/leader-election/lease.js';
import { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';
import { LEASE_REF } from './helpers/harness.js';

function world() {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  const api = new InMemoryLeaseApi({ scheduler });
  const run = (t: number) => {
    scheduler.maxFrames = t;
    scheduler.flush();
    scheduler.frame = Math.max(scheduler.frame, t);
  };
  return { scheduler, api, run };
}

const lease: Lease = { metadata: { name: LEASE_REF.name, namespace: LEASE_REF.namespace }, spec: { holderIdentity: 'x' } };

describe('InMemoryLeaseApi', () => {
  it('404 on get of a missing lease, 409 AlreadyExists on a second create, resourceVersion bumps on write', () => {
    const { api, run } = world();
    const errors: unknown[] = [];
    const values: Lease[] = [];
    api.get(LEASE_REF).subscribe({ error: (e: unknown) => errors.push(e) });
    api.create(lease).subscribe((v) => values.push(v));
    run(10);
    api.create(lease).subscribe({ error: (e: unknown) => errors.push(e) });
    run(20);
    expect(isNotFound(errors[0])).toBe(true);
    expect(isAlreadyExists(errors[1])).toBe(true);
    expect(values[0]?.metadata?.resourceVersion).toBe('1');
  });

  it('update with a stale resourceVersion → 409 Conflict, nothing written', () => {
    const { api, run } = world();
    let created: Lease | undefined;
    api.create(lease).subscribe((v) => (created = v));
    run(1);
    api.update({ ...created, spec: { holderIdentity: 'y' } }).subscribe();
    run(2);
    let error: unknown;
    api.update({ ...created, spec: { holderIdentity: 'z' } }).subscribe({ error: (e: unknown) => (error = e) });
    run(3);
    expect(isConflict(error)).toBe(true);
    expect(api.peek(LEASE_REF)?.spec?.holderIdentity).toBe('y');
    expect(api.writes.map((w) => w.op)).toEqual(['create', 'update']);
  });

  it('applies latency per direction; an unsubscribed request still lands at the server (late write)', () => {
    const { api, run, scheduler } = world();
    api.latency = () => ({ request: 100, response: 50 });
    const seen: number[] = [];
    const sub = api.client('slow').create(lease).subscribe(() => seen.push(scheduler.now()));
    run(60);
    sub.unsubscribe(); // the caller gave up (timeout) ...
    run(1_000);
    expect(seen).toEqual([]);
    expect(api.writes.map((w) => [w.client, w.at])).toEqual([['slow', 100]]); // ... but the write landed
    api.get(LEASE_REF).subscribe(() => seen.push(scheduler.now()));
    run(2_000);
    expect(seen).toEqual([1_000 + 150]);
  });

  it('faults: drop-request never arrives, drop-response is applied but unanswered, error is answered unapplied', () => {
    const { api, run } = world();
    const outcomes: string[] = [];
    const observe = (label: string) => ({
      next: () => outcomes.push(`${label}:next`),
      error: () => outcomes.push(`${label}:error`),
    });
    api.fault = () => ({ kind: 'drop-request' });
    api.create(lease).subscribe(observe('dropReq'));
    run(10);
    expect(api.peek(LEASE_REF)).toBeUndefined();
    api.fault = () => ({ kind: 'drop-response' });
    api.create(lease).subscribe(observe('dropResp'));
    run(20);
    expect(api.peek(LEASE_REF)?.spec?.holderIdentity).toBe('x');
    expect(outcomes).toEqual([]);
    api.fault = (r) => (r.op === 'get' ? undefined : { kind: 'error', error: new ApiError({ code: 500, reason: 'InternalError' }) });
    api.update({ ...api.peek(LEASE_REF), spec: { holderIdentity: 'nope' } }).subscribe(observe('error'));
    run(30);
    expect(outcomes).toEqual(['error:error']);
    expect(api.peek(LEASE_REF)?.spec?.holderIdentity).toBe('x');
  });
});
