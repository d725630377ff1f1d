import { describe, expect, it } from 'vitest';
import { formatMicroTime, type LeaderElectionRecord, leaseSpecToRecord, parseMicroTime, recordToLeaseSpec } from '../../src/leader-election/lease.js';
import { LeaseLock } from '../../src/leader-election/lease-lock.js';
import { LEASE_REF } from '../leader-election/helpers/harness.js';
import { virtualLeaseWorld } from '../leader-election/helpers/virtual.js';

// LE-2 Lease record <-> Lease object.
describe('LE-2 record <-> Lease spec', () => {
  it('round-trips every field, timestamps with microseconds', () => {
    const record: LeaderElectionRecord = {
      holderIdentity: 'pod-a_1234',
      leaseDurationSeconds: 15,
      acquireTime: Date.UTC(2026, 10, 22, 3, 4, 5, 678) + 0.123,
      renewTime: Date.UTC(2026, 10, 22, 3, 4, 7, 1),
      leaseTransitions: 3,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'pod-b',
    };
    const spec = recordToLeaseSpec(record);
    expect(spec.acquireTime).toBe('2026-11-22T03:04:05.678123Z');
    expect(spec.renewTime).toBe('2026-11-22T03:04:07.001000Z');
    const back = leaseSpecToRecord(spec);
    expect(back.holderIdentity).toBe(record.holderIdentity);
    expect(back.acquireTime).toBeCloseTo(record.acquireTime, 6);
    expect(back).toEqual({ ...record, acquireTime: back.acquireTime });
  });

  it('reads a missing spec as a free lease and parses plain RFC 3339 times', () => {
    expect(leaseSpecToRecord(undefined)).toEqual({ holderIdentity: '', leaseDurationSeconds: 0, acquireTime: 0, renewTime: 0, leaseTransitions: 0 });
    expect(parseMicroTime('2026-11-22T03:04:05Z')).toBe(Date.UTC(2026, 10, 22, 3, 4, 5));
    expect(parseMicroTime('garbage')).toBe(0);
    expect(formatMicroTime(0)).toBe('1970-01-01T00:00:00.000000Z');
  });

  it('always writes the five core fields and merges the lock labels into the Lease', () => {
    const w = virtualLeaseWorld();
    w.seed({});
    const existing = w.api.peek(LEASE_REF);
    w.result(w.api.update({ ...existing, metadata: { ...existing?.metadata, labels: { keep: 'me' } } }));
    const lock = new LeaseLock(w.api, LEASE_REF, 'me', { labels: { app: 'rxkube' } });
    w.result(lock.get());
    w.result(lock.update({ holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: 0, renewTime: 0, leaseTransitions: 0 }));
    const lease = w.api.peek(LEASE_REF);
    expect(Object.keys(lease?.spec ?? {}).sort()).toEqual(['acquireTime', 'holderIdentity', 'leaseDurationSeconds', 'leaseTransitions', 'renewTime']);
    expect(lease?.metadata?.labels).toEqual({ keep: 'me', app: 'rxkube' });
  });
});
