import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { formatMicroTime } from '../../src/leader-election/lease.js';
import { LeaderElector } from '../../src/leader-election/leader-elector.js';
import { LEASE_REF } from '../leader-election/helpers/harness.js';
import { virtualLeaseWorld } from '../leader-election/helpers/virtual.js';

// LE-4 tryAcquireOrRenew: fast path, get/create, expiry from this client's own observation.
describe('LE-4 tryAcquireOrRenew', () => {
  const held = (holder: string, seconds = 10, transitions = 0) => ({
    holderIdentity: holder,
    leaseDurationSeconds: seconds,
    acquireTime: formatMicroTime(0),
    renewTime: formatMicroTime(0),
    leaseTransitions: transitions,
  });

  it('acquires from no object by creating it (transitions 0)', () => {
    const w = virtualLeaseWorld();
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
    expect(w.requests.map((r) => r.op)).toEqual(['get', 'create']);
    const spec = w.api.peek(LEASE_REF)?.spec;
    expect(spec?.holderIdentity).toBe('me');
    expect(spec?.leaseDurationSeconds).toBe(15);
    expect(spec?.leaseTransitions).toBe(0);
    expect(elector.isLeader()).toBe(true);
  });

  it('acquires from an unled object (empty holder), incrementing transitions', () => {
    const w = virtualLeaseWorld();
    w.seed(held('', 10, 4));
    w.requests.length = 0;
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
    expect(w.requests.map((r) => r.op)).toEqual(['get', 'update']);
    expect(w.api.peek(LEASE_REF)?.spec?.leaseTransitions).toBe(5);
  });

  it('does not acquire a led, just-observed object: one API call, no write', () => {
    const w = virtualLeaseWorld();
    w.seed(held('other'));
    w.requests.length = 0;
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    expect(w.requests.map((r) => r.op)).toEqual(['get']);
    expect(elector.observedHolder()).toBe('other');
  });

  it('acquires a led object once leaseDurationSeconds passed since this client saw it change (fails before)', () => {
    const w = virtualLeaseWorld();
    w.seed(held('other', 3, 1));
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    const seenAt = elector.observedTime;
    w.runUntil(seenAt + 2_999);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    w.runUntil(seenAt + 3_000);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
    const spec = w.api.peek(LEASE_REF)?.spec;
    expect(spec?.holderIdentity).toBe('me');
    expect(spec?.leaseTransitions).toBe(2);
  });

  it('measures expiry from its own observation, ignoring the timestamps in the record (skew tolerant)', () => {
    const w = virtualLeaseWorld();
    w.runUntil(100_000);
    // A renewTime 30 years in the past (a skewed or frozen writer clock) does not make the lease expired...
    w.seed({ ...held('other', 10), renewTime: formatMicroTime(-1e12) });
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    // ...and one far in the future does not extend it.
    w.seed({ ...held('other', 10), renewTime: formatMicroTime(1e13) });
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    const changedSeenAt = elector.observedTime;
    w.runUntil(changedSeenAt + 10_000);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
  });

  it('does not restart the clock when the same record is read again', () => {
    const w = virtualLeaseWorld();
    w.seed(held('other', 10));
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    w.result(elector.tryAcquireOrRenew());
    const first = elector.observedTime;
    w.runUntil(first + 6_000);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    expect(elector.observedTime).toBe(first);
    w.runUntil(first + 10_000);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
  });

  it('treats an empty holder as free even when just observed', () => {
    const w = virtualLeaseWorld();
    w.seed(held('', 3600, 2));
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
  });

  it('renews an acquired lease without a transition, keeping acquireTime, via the fast path (one update, no get)', () => {
    const w = virtualLeaseWorld();
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    w.result(elector.tryAcquireOrRenew());
    const acquired = w.api.peek(LEASE_REF)?.spec;
    w.requests.length = 0;
    w.runUntil(w.scheduler.now() + 2_000);
    expect(w.result(elector.tryAcquireOrRenew())).toBe(true);
    expect(w.requests.map((r) => r.op)).toEqual(['update']);
    const renewed = w.api.peek(LEASE_REF)?.spec;
    expect(renewed?.leaseTransitions).toBe(0);
    expect(renewed?.acquireTime).toBe(acquired?.acquireTime);
    expect(renewed?.renewTime).not.toBe(acquired?.renewTime);
  });

  it('falls back to the slow path when the fast-path update conflicts, and then respects the new holder', () => {
    const w = virtualLeaseWorld();
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    w.result(elector.tryAcquireOrRenew());
    w.seed(held('thief', 15, 1)); // someone else wrote meanwhile
    w.requests.length = 0;
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
    expect(w.requests.map((r) => r.op)).toEqual(['update', 'get']);
    expect(elector.observedHolder()).toBe('thief');
    expect(elector.isLeader()).toBe(false);
  });

  it('loses the race on Conflict when two candidates write the same expired lease', () => {
    const w = virtualLeaseWorld();
    w.seed(held('', 10, 0));
    const a = new LeaderElector(w.lock('a'), 15_000, w.scheduler);
    const b = new LeaderElector(w.lock('b'), 15_000, w.scheduler);
    const results: boolean[] = [];
    a.tryAcquireOrRenew().subscribe((ok) => results.push(ok));
    b.tryAcquireOrRenew().subscribe((ok) => results.push(ok));
    w.runUntil(1_000);
    expect(results.sort()).toEqual([false, true]);
    expect(w.api.writes.filter((x) => x.op === 'update')).toHaveLength(1);
  });

  it('reports false (never errors) on other API errors', () => {
    const w = virtualLeaseWorld();
    const elector = new LeaderElector(w.lock('me'), 15_000, w.scheduler);
    w.api.fault = () => ({ kind: 'error', error: new ApiError({ code: 500, reason: 'InternalError' }) });
    expect(w.result(elector.tryAcquireOrRenew())).toBe(false);
  });
});
