import { describe, expect, it } from 'vitest';
import { LeaderElectionConfigError, type LeaderElectionConfig } from '../../src/leader-election/index.js';
import { leaderElection } from '../../src/leader-election/leader-election.js';
import { LeaseLock } from '../../src/leader-election/lease-lock.js';
import { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';
import { LEASE_REF } from '../leader-election/helpers/harness.js';

// LE-1 config validation, in client-go's order, with typed errors; CR-11 defaults.
describe('LE-1 config validation', () => {
  const lock = new LeaseLock(new InMemoryLeaseApi(), LEASE_REF, 'me');
  const fails = (config: Partial<LeaderElectionConfig>) => {
    try {
      leaderElection({ lock, ...config } as LeaderElectionConfig);
    } catch (err) {
      expect(err).toBeInstanceOf(LeaderElectionConfigError);
      return err as LeaderElectionConfigError;
    }
    throw new Error('expected a LeaderElectionConfigError');
  };

  it('accepts the defaults (15 s / 10 s / 2 s)', () => {
    expect(() => leaderElection({ lock })).not.toThrow();
  });

  it('requires leaseDuration > renewDeadline', () => {
    const err = fails({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 });
    expect(err.field).toBe('leaseDurationMs');
    expect(err.message).toBe('leaseDurationMs must be greater than renewDeadlineMs');
  });

  it('requires renewDeadline > 1.2 × retryPeriod', () => {
    expect(fails({ renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }).message).toBe('renewDeadlineMs must be greater than retryPeriodMs × jitterFactor');
    expect(() => leaderElection({ lock, renewDeadlineMs: 2_401, retryPeriodMs: 2_000 })).not.toThrow();
  });

  it('requires all three durations > 0, checked after the ordering rules', () => {
    expect(fails({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }).field).toBe('retryPeriodMs');
    expect(fails({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: -1 }).field).toBe('retryPeriodMs');
    // Ordering comes first: a negative renewDeadline with retryPeriod 2s fails the jitter rule.
    expect(fails({ renewDeadlineMs: -5, retryPeriodMs: 2_000 }).field).toBe('renewDeadlineMs');
    expect(fails({ leaseDurationMs: Number.NaN }).field).toBe('leaseDurationMs');
  });

  it('rejects non-function callbacks (callbacks are optional: leading$ / leader$ carry the same)', () => {
    expect(fails({ onStartedLeading: 42 as unknown as () => void }).field).toBe('onStartedLeading');
    expect(fails({ onStoppedLeading: 'x' as unknown as () => void }).field).toBe('onStoppedLeading');
  });

  it('requires a lock and a non-empty identity', () => {
    expect(fails({ lock: undefined as unknown as LeaseLock }).message).toBe('Lock must not be nil.');
    const anonymous = new LeaseLock(new InMemoryLeaseApi(), LEASE_REF, '');
    const err = fails({ lock: anonymous });
    expect(err.field).toBe('lock.identity');
    expect(err.message).toBe('Lock identity is empty');
  });
});
