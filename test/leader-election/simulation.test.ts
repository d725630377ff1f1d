import { describe, expect, it } from 'vitest';
import { simulateFailovers, type SimulationReport } from './helpers/simulation.js';

/*
 * Leader election under faults, in virtual time.
 *
 * What is measured:
 * - safety: at no instant do two processes lead (leading$ true) while neither is paused; a paused
 *   leader must have dropped leadership the instant it resumes (checked 0.5 ms after resuming).
 *   Also, each leader runs leader-only work (a tick every second through whileLeading, on its own
 *   pausable clock) that checks isLeading() before acting; no tick may act while another process
 *   leads unpaused. Ticks that were due during a pause run late when it ends; the guard refuses
 *   them ("guarded"), which is why work with outside effects should check isLeading().
 * - recovery of each failover: (first instant the new leader leads) − (server time of the old
 *   leader's last applied write as holder). Bound:
 *     (leaseDuration + retryPeriod·(1 + jitterFactor)) / minClockRate + 14 · maxDelay
 *   i.e. with the defaults (15 s, 2 s, jitter 1.2), clock rates within ±10 % and one-way delays of
 *   healthy processes ≤ 200 ms: (15 + 4.4) / 0.9 + 2.8 ≈ 24.4 s. The retryPeriod term is the
 *   longest jittered wait (2.2 × 2 s) before a healthy candidate first sees the last record; the
 *   14 · maxDelay term covers that read, the attempt in flight at expiry and the winning get+update.
 *   Without jitter, skew and delays the bound is exactly leaseDuration + retryPeriod (17 s).
 * - documented clock bound: safety needs clock RATES of any two processes to differ by a factor
 *   < leaseDuration / renewDeadline (1.5 with the defaults); clock offsets are irrelevant (random
 *   ±1 h here) because every duration is measured on one process's own clock.
 */

function print(label: string, r: SimulationReport): void {
  console.log(
    `[le-sim] ${label}: failovers=${r.failovers} violations=${r.overlaps.length + r.unsafeActs.length + r.slowRecoveries.length + r.stalls} ` +
      `(overlaps=${r.overlaps.length} unsafeActs=${r.unsafeActs.length} slowRecoveries=${r.slowRecoveries.length} stalls=${r.stalls}) ` +
      `work acted=${r.work.acted} guarded=${r.work.guarded} (of which another led: ${r.work.guardedWhileOtherLeads}) ` +
      `recovery max=${r.maxRecovery.toFixed(0)}ms mean=${r.meanRecovery.toFixed(0)}ms bound=${r.bound.toFixed(0)}ms ` +
      `faults=${JSON.stringify(r.faults)} simulated=${(r.simulatedMs / 3_600_000).toFixed(1)}h`,
  );
}

describe('leader election simulation (3 candidates, faults, skew, delays)', () => {
  it.each([1, 2, 3])('seed %i: 2000 failovers, never two leaders, recovery within the bound', (seed) => {
    const report = simulateFailovers({ seed, failovers: 2_000, rateSkew: 0.1, maxDelay: 200 });
    print(`seed ${seed}`, report);
    expect(report.failovers).toBe(2_000);
    expect(report.overlaps).toEqual([]);
    expect(report.unsafeActs).toEqual([]);
    expect(report.slowRecoveries).toEqual([]);
    expect(report.stalls).toBe(0);
    expect(report.work.acted).toBeGreaterThan(0);
    // pauses of a leader really happen: stale ticks after resuming exist, and only the guard stops them
    expect(report.work.guardedWhileOtherLeads).toBeGreaterThan(0);
    expect(Object.values(report.faults).every((n) => n > 100)).toBe(true);
  });

  it('clock rates at the edge of the documented bound (ratio 1.45 < 1.5): still safe', () => {
    const report = simulateFailovers({ seed: 5, failovers: 1_000, rateSkew: 0, rates: [0.76, 1.1, 1.1], maxDelay: 200 });
    print('edge skew', report);
    expect(report.overlaps).toEqual([]);
    expect(report.unsafeActs).toEqual([]);
    expect(report.slowRecoveries).toEqual([]);
  });

  it('no jitter, no skew, no delay: recovery within exactly leaseDuration + retryPeriod', () => {
    const report = simulateFailovers({ seed: 6, failovers: 1_000, rateSkew: 0, maxDelay: 0, jitterFactor: 0 });
    print('ideal', report);
    expect(report.bound).toBe(17_000);
    expect(report.overlaps).toEqual([]);
    expect(report.unsafeActs).toEqual([]);
    expect(report.slowRecoveries).toEqual([]);
  });

  it('negative control: clock rates beyond the bound (0.6 vs 1.0) DO produce two leaders — the checker can fail', () => {
    const report = simulateFailovers({ seed: 4, failovers: 1_000, rateSkew: 0, rates: [0.6, 1, 1], maxDelay: 200 });
    print('beyond bound (expected violations)', report);
    expect(report.overlaps.length).toBeGreaterThan(0);
    expect(report.unsafeActs.length).toBeGreaterThan(0);
  });
});
