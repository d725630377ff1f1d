import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { formatMicroTime } from '../../src/leader-election/lease.js';
import { leaderElection } from '../../src/leader-election/leader-election.js';
import { LEASE_REF } from '../leader-election/helpers/harness.js';
import { virtualLeaseWorld } from '../leader-election/helpers/virtual.js';

// LE-7 releaseOnCancel: on stop, get; if holder, write an empty holder (duration 1 s), retrying on Conflict.
describe('LE-7 releaseOnCancel', () => {
  it('releases the held lease on unsubscribe: empty holder, 1 s, transitions unchanged', () => {
    const w = virtualLeaseWorld();
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler, releaseOnCancel: true });
    const sub = a.leading$.subscribe();
    w.runUntil(5_000);
    const before = w.api.peek(LEASE_REF)?.spec;
    expect(before?.holderIdentity).toBe('a');
    w.requests.length = 0;
    sub.unsubscribe();
    w.runUntil(6_000);
    expect(w.requests.map((r) => r.op)).toEqual(['get', 'update']);
    const after = w.api.peek(LEASE_REF)?.spec;
    expect(after?.holderIdentity).toBe('');
    expect(after?.leaseDurationSeconds).toBe(1);
    expect(after?.leaseTransitions).toBe(before?.leaseTransitions);
    expect(after?.renewTime).toBe(formatMicroTime(5_000));
    expect(a.isLeader()).toBe(false);
  });

  it('does nothing but a get when it is not the holder', () => {
    const w = virtualLeaseWorld();
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler });
    const b = leaderElection({ lock: w.lock('b'), scheduler: w.scheduler, releaseOnCancel: true });
    const subA = a.leading$.subscribe();
    const subB = b.leading$.subscribe();
    w.runUntil(5_000);
    w.requests.length = 0;
    subB.unsubscribe();
    w.runUntil(5_001);
    expect(w.requests.filter((r) => r.client === 'b').map((r) => r.op)).toEqual(['get']);
    expect(w.api.peek(LEASE_REF)?.spec?.holderIdentity).toBe('a');
    subA.unsubscribe();
  });

  it('retries the whole release (get + update) on Conflict', () => {
    const w = virtualLeaseWorld();
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler, releaseOnCancel: true });
    const sub = a.leading$.subscribe();
    w.runUntil(5_000);
    let conflicts = 1;
    w.requests.length = 0;
    w.api.fault = (r) => {
      w.requests.push(r);
      if (r.op === 'update' && conflicts-- > 0) return { kind: 'error', error: new ApiError({ code: 409, reason: 'Conflict' }) };
      return undefined;
    };
    sub.unsubscribe();
    w.runUntil(6_000);
    expect(w.requests.map((r) => r.op)).toEqual(['get', 'update', 'get', 'update']);
    expect(w.api.peek(LEASE_REF)?.spec?.holderIdentity).toBe('');
  });

  it('without the option, stopping sends nothing; with it, the next candidate takes over within one retry', () => {
    const w = virtualLeaseWorld();
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler });
    const subA = a.leading$.subscribe();
    w.runUntil(5_000);
    w.requests.length = 0;
    subA.unsubscribe();
    w.runUntil(10_000);
    expect(w.requests).toEqual([]);

    const w2 = virtualLeaseWorld();
    const c = leaderElection({ lock: w2.lock('c'), scheduler: w2.scheduler, releaseOnCancel: true });
    const d = leaderElection({ lock: w2.lock('d'), scheduler: w2.scheduler, random: () => 0.999 });
    const subC = c.leading$.subscribe();
    let dLeadsAt: number | undefined;
    const subD = d.leading$.subscribe((l) => (l && dLeadsAt === undefined ? (dLeadsAt = w2.scheduler.now()) : undefined));
    w2.runUntil(20_000);
    subC.unsubscribe();
    w2.runUntil(40_000);
    expect(dLeadsAt).toBeGreaterThan(20_000);
    expect(dLeadsAt).toBeLessThanOrEqual(20_000 + 2_000 * 2.2);
    subD.unsubscribe();
  });
});
