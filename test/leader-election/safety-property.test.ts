import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster, seededRandom } from './helpers/harness.js';

/*
 * Safety under ARBITRARY fault schedules (fast-check, shrinking on failure): any candidate, any
 * time, overlapping faults — pauses, partitions, lossy or slow links, kills and graceful stops with
 * restarts — with clock rates inside the documented bound (ratio < leaseDuration / renewDeadline).
 * Liveness is not asserted here (e.g. all three may be partitioned at once); only that no two
 * candidates ever lead at once and no guarded leader-only work acts while another leads.
 */

type Fault =
  | { kind: 'pause'; at: number; who: number; ms: number }
  | { kind: 'partition' | 'lossy' | 'slow'; at: number; who: number; ms: number }
  | { kind: 'kill' | 'stop'; at: number; who: number; restartAfter: number };

const who = fc.integer({ min: 0, max: 2 });
const at = fc.integer({ min: 0, max: 280_000 });
const span = fc.integer({ min: 100, max: 45_000 });
const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.record({ kind: fc.constant('pause' as const), at, who, ms: span }),
  fc.record({ kind: fc.constantFrom('partition' as const, 'lossy' as const, 'slow' as const), at, who, ms: span }),
  fc.record({ kind: fc.constantFrom('kill' as const, 'stop' as const), at, who, restartAfter: fc.integer({ min: 0, max: 30_000 }) }),
);
const rate = (min: number, max: number) => fc.double({ min, max, noNaN: true });
const scenario = (rates: fc.Arbitrary<[number, number, number]>) =>
  fc.record({
    faults: fc.array(fault, { maxLength: 12 }),
    rates,
    maxDelay: fc.integer({ min: 0, max: 500 }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
  });
const stats = { runs: 0, faults: 0 };

describe('leader election safety property (fast-check)', () => {
  const safe = (rates: fc.Arbitrary<[number, number, number]>) =>
    fc.property(scenario(rates), ({ faults, rates, maxDelay, seed }) => {
      stats.runs++;
      stats.faults += faults.length;
      const c = new Cluster({ seed });
      c.workTick = 1_000;
      const next = seededRandom(seed ^ 0x5eed);
      const links = new Map<string, { kind: 'partition' | 'lossy' | 'slow'; until: number }>();
      c.api.latency = (r) =>
        links.get(r.client)?.kind === 'slow' && r.at < (links.get(r.client)?.until ?? 0)
          ? { request: 500 + 2_500 * next(), response: 500 + 2_500 * next() }
          : { request: maxDelay * next(), response: maxDelay * next() };
      c.api.fault = (r) => {
        const link = links.get(r.client);
        if (link === undefined || r.at >= link.until || link.kind === 'slow') return undefined;
        if (link.kind === 'lossy' && next() < 0.5) return undefined;
        return next() < 0.5 ? { kind: 'drop-request' } : { kind: 'drop-response' };
      };
      const current = ['a#0', 'b#0', 'c#0'];
      const gen = [0, 0, 0];
      const spawn = (i: number) => {
        const id = `${'abc'[i]}#${gen[i]}`;
        current[i] = id;
        c.start(id, { rate: rates[i], offset: 1_000_000 * i }, { releaseOnCancel: true });
      };
      [0, 1, 2].forEach(spawn);
      for (const f of faults) {
        c.at(f.at, () => {
          const id = current[f.who] ?? '';
          const candidate = c.candidates.get(id);
          if (candidate === undefined) return;
          if (f.kind === 'pause') candidate.process.pause(f.ms);
          else if (f.kind === 'kill' || f.kind === 'stop') {
            if (f.kind === 'kill') c.kill(id);
            else c.stop(id);
            gen[f.who] = (gen[f.who] ?? 0) + 1;
            c.at(c.now + f.restartAfter, () => spawn(f.who));
          } else if (f.kind === 'partition' || f.kind === 'lossy' || f.kind === 'slow') links.set(id, { kind: f.kind, until: c.now + f.ms });
        });
      }
      c.runUntil(360_000);
      for (const id of [...c.candidates.keys()]) c.kill(id);
      return c.overlaps.length === 0 && c.unsafeActs.length === 0;
    });

  it('never two leaders, never unsafe leader-only work, under arbitrary faults (rates within ±10 %)', () => {
    stats.runs = 0;
    stats.faults = 0;
    fc.assert(safe(fc.tuple(rate(0.9, 1.1), rate(0.9, 1.1), rate(0.9, 1.1))), { numRuns: 120, seed: 20261122 });
    console.log(`[le-property] scenarios=${stats.runs} faults=${stats.faults} violations=0`);
    expect(stats.runs).toBeGreaterThanOrEqual(120);
  });

  it('negative control: with clock rates 0.6 vs 1.0 (beyond the bound) the property finds a counterexample', () => {
    const result = fc.check(safe(fc.tuple(rate(0.6, 0.6), rate(1, 1), rate(1, 1))), { numRuns: 600, seed: 20261122, endOnFailure: true });
    console.log(`[le-property] beyond bound: failed=${result.failed} after ${result.numRuns} scenarios, counterexample=${JSON.stringify(result.counterexample)}`);
    expect(result.failed).toBe(true);
  });
});
