import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { LeaderElectionHealthError } from '../../src/leader-election/index.js';
import { leaderElection } from '../../src/leader-election/leader-election.js';
import { virtualLeaseWorld } from '../leader-election/helpers/virtual.js';

// LE-8 health check and isLeader.
describe('LE-8 health check', () => {
  it('is healthy when not the leader, and when the leader keeps renewing', () => {
    const w = virtualLeaseWorld();
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler });
    const b = leaderElection({ lock: w.lock('b'), scheduler: w.scheduler });
    const subs = [a.leading$.subscribe(), b.leading$.subscribe()];
    w.runUntil(120_000);
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    expect(a.check()).toBeUndefined();
    expect(b.check()).toBeUndefined();
    subs.forEach((s) => s.unsubscribe());
  });

  it('fails once the leader has not renewed for leaseDuration + maxTolerableExpiredLease', () => {
    const w = virtualLeaseWorld();
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler });
    const sub = a.leading$.subscribe();
    w.runUntil(1);
    w.api.fault = () => ({ kind: 'error', error: new ApiError({ code: 500, reason: 'InternalError' }) });
    // last observed write at 0
    w.runUntil(16_000);
    expect(a.check(1_000)).toBeUndefined();
    expect(a.isLeader()).toBe(true); // by observation
    expect(a.isLeading()).toBe(false); // but it stopped leading at the renew deadline (10 s)
    w.runUntil(16_001);
    const err = a.check(1_000);
    expect(err).toBeInstanceOf(LeaderElectionHealthError);
    expect(err?.message).toBe('failed election to renew leadership on lease kube-system/rxkube-test');
    expect(a.check(5_000)).toBeUndefined();
    sub.unsubscribe();
  });
});
