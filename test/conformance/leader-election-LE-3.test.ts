import { describe, expect, it } from 'vitest';
import { isConflict } from '../../src/client/api-error.js';
import { LeaseLock, LeaseNotInitializedError } from '../../src/leader-election/lease-lock.js';
import { LEASE_REF } from '../leader-election/helpers/harness.js';
import { virtualLeaseWorld } from '../leader-election/helpers/virtual.js';

// LE-3 optimistic concurrency through metadata.resourceVersion.
describe('LE-3 optimistic concurrency', () => {
  const record = { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: 0, renewTime: 0, leaseTransitions: 0 };

  it('update before any get/create fails with "lease not initialized"', () => {
    const w = virtualLeaseWorld();
    const lock = new LeaseLock(w.api, LEASE_REF, 'me');
    expect(() => w.result(lock.update(record))).toThrow(LeaseNotInitializedError);
    expect(() => w.result(lock.update(record))).toThrow('lease not initialized, call get or create first');
  });

  it('update sends the cached resourceVersion, so a concurrent writer makes it fail with 409 Conflict', () => {
    const w = virtualLeaseWorld();
    const mine = new LeaseLock(w.api, LEASE_REF, 'me');
    const theirs = new LeaseLock(w.api, LEASE_REF, 'them');
    w.result(mine.create(record));
    w.result(theirs.get());
    w.result(theirs.update({ ...record, holderIdentity: 'them' }));
    let error: unknown;
    try {
      w.result(mine.update({ ...record, renewTime: 5 }));
    } catch (err) {
      error = err;
    }
    expect(isConflict(error)).toBe(true);
    expect(w.api.peek(LEASE_REF)?.spec?.holderIdentity).toBe('them');
    // After a fresh get the cache is current and the update goes through.
    w.result(mine.get());
    expect(w.result(mine.update({ ...record, renewTime: 5 })).record.holderIdentity).toBe('me');
  });

  it('caches what create/update returned: consecutive updates by one lock succeed', () => {
    const w = virtualLeaseWorld();
    const lock = new LeaseLock(w.api, LEASE_REF, 'me');
    w.result(lock.create(record));
    for (let i = 1; i <= 3; i++) w.result(lock.update({ ...record, renewTime: i * 1000 }));
    expect(w.api.peek(LEASE_REF)?.metadata?.resourceVersion).toBe('4');
  });
});
