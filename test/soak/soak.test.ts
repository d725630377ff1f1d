import { describe, expect, it } from 'vitest';
import { formatSoakReport, runSoak } from '../../soak/chaos-soak.js';

/**
 * The chaos soak, short (CI). A writer churns ConfigMaps (creates, updates, label moves across a
 * selector, deletes) against the embedded API server while faults fire (dropped and broken
 * watches, 410s, compaction, 500/503/429 bursts, latency, frozen watches, restarts); a shared
 * informer with a fast, a slow and a throwing subscriber, a selector informer and a controller run
 * throughout. At quiescence every cache and subscriber view equals the server, the controller has
 * reconciled every key's final state, no key was reconciled twice at once, memory stays bounded,
 * and nothing stays open. `npm run soak` runs the long version.
 */
describe('chaos soak (short)', () => {
  it('converges to the server state with 0 violations under random faults', async () => {
    const report = await runSoak({ durationMs: 15_000, keys: 1_500, opsPerTick: 4, faultEveryMs: 300, seed: 7, quiesceTimeoutMs: 30_000 });
    for (const line of formatSoakReport(report)) console.log(`[soak] ${line}`);
    const faults = Object.values(report.faults).reduce((a, b) => a + b, 0);
    expect(faults).toBeGreaterThan(20);
    expect(report.relists).toBeGreaterThan(2);
    expect(report.reconciles).toBeGreaterThan(1_000);
    expect(report.subscriberRestarts).toBeGreaterThan(0);
    expect(report.writes.labelMoves).toBeGreaterThan(100);
    expect(report.violations).toEqual([]);
  }, 60_000);

  it('negative control: a subscriber that drops deletes is reported', async () => {
    const report = await runSoak({ durationMs: 2_000, keys: 300, opsPerTick: 2, faultEveryMs: 300, seed: 3, quiesceTimeoutMs: 3_000, sabotage: 'fastIgnoresDeletes' });
    expect(report.violations.some((v) => v.startsWith('subscriber fast: phantom'))).toBe(true);
    // Beside the sabotaged subscriber nothing may diverge. Whether every watch closes after the stop
    // is the first test's check: this short run stops while its faults may still hold a watch open
    // (seen once under load: "1 watches still open after stop").
    const others = report.violations.filter((v) => !(v.includes('fast') || v.startsWith('no convergence') || v.endsWith('watches still open after stop')));
    expect(others).toEqual([]);
  }, 30_000);
});
