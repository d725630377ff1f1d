import { interval, map, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Cluster } from './helpers/harness.js';

const L = 15_000;
const R = 2_000;
const LATENCY = 5; // one-way, ms

function cluster(seed: number, jitterFactor?: number): Cluster {
  const c = new Cluster({ seed, ...(jitterFactor !== undefined ? { jitterFactor } : {}) });
  c.api.latency = () => ({ request: LATENCY, response: LATENCY });
  return c;
}

describe('leaderElection with several candidates (in-memory lease API, virtual time)', () => {
  it('two candidates: exactly one leads, for good, and never both at once', () => {
    const c = cluster(1);
    c.start('a');
    c.start('b');
    c.runUntil(600_000);
    expect(c.leaders()).toHaveLength(1);
    expect(c.terms).toHaveLength(1);
    expect(c.overlaps).toEqual([]);
  });

  it.each([
    ['default jitter', undefined, L + R * 2.2],
    ['no jitter', 0, L + R],
  ])('three candidates, 20 kills of the leader (%s): failover within the bound, never two leaders', (_name, jitter, bound) => {
    const c = cluster(7, jitter);
    let n = 0;
    for (const id of ['a', 'b', 'c']) c.start(`${id}${n}`);
    c.runUntil(30_000);
    const failovers: { fromLastWrite: number; fromKill: number }[] = [];
    for (let k = 0; k < 20; k++) {
      const [leader] = c.leaders();
      expect(leader).toBeDefined();
      if (leader === undefined) return;
      const lastWrite = c.lastWriteBy(leader) ?? 0;
      const killedAt = c.now;
      c.kill(leader);
      c.start(`${leader.slice(0, 1)}${++n}`); // the killed process comes back at once as a new candidate
      const deadline = killedAt + 60_000;
      while (c.leaders().length === 0 && c.now < deadline) c.runUntil(c.now + 100);
      const newTerm = c.terms[c.terms.length - 1];
      expect(newTerm?.id).not.toBe(leader);
      const startedAt = newTerm?.start ?? Number.POSITIVE_INFINITY;
      failovers.push({ fromLastWrite: startedAt - lastWrite, fromKill: startedAt - killedAt });
      c.runUntil(c.now + 7_000 + k * 333); // let it lead a while (kill at varied phases of the renew cycle)
    }
    // Bound, measured from the old leader's last successful renew (applied at the server) to the new
    // leader's first leading instant; allowance: two round trips of latency for the winning attempt.
    const allowance = 4 * LATENCY;
    for (const f of failovers) {
      expect(f.fromLastWrite).toBeLessThanOrEqual(bound + allowance);
      expect(f.fromLastWrite).toBeGreaterThanOrEqual(L); // nobody takes a lease early
      expect(f.fromKill).toBeLessThanOrEqual(bound + allowance);
    }
    expect(c.overlaps).toEqual([]);
  });

  it('a partitioned leader stops leading at its renew deadline, at least leaseDuration − renewDeadline before anyone else leads', () => {
    const c = cluster(3);
    c.start('a');
    c.runUntil(1_000);
    c.start('b');
    c.start('c');
    c.runUntil(21_000);
    expect(c.leaders()).toEqual(['a']);
    c.api.fault = (r) => (r.client === 'a' ? { kind: 'drop-request' } : undefined);
    c.runUntil(60_000);
    const aTerm = c.terms.find((t) => t.id === 'a');
    const next = c.terms.find((t) => t.id !== 'a');
    expect(aTerm?.end).toBeDefined();
    expect(next).toBeDefined();
    const lastWrite = c.lastWriteBy('a') ?? 0;
    // a's last successful attempt started at most one round trip before its write landed
    expect(aTerm?.end ?? 0).toBeLessThanOrEqual(lastWrite + 10_000);
    expect((next?.start ?? 0) - (aTerm?.end ?? 0)).toBeGreaterThanOrEqual(L - 10_000 - 2 * LATENCY);
    expect(c.overlaps).toEqual([]);
  });

  it('whileLeading runs work only on the leader and tears it down at the instant leadership is lost', () => {
    const c = cluster(5);
    const a = c.start('a');
    c.runUntil(100);
    const b = c.start('b');
    const ticks: { id: string; at: number }[] = [];
    const work = (id: string) => (): Observable<void> =>
      interval(500, c.scheduler).pipe(map(() => void ticks.push({ id, at: c.now })));
    const subs = [a.election.whileLeading(work('a')).subscribe(), b.election.whileLeading(work('b')).subscribe()];
    c.runUntil(10_000);
    expect(ticks.length).toBeGreaterThan(10);
    expect(new Set(ticks.map((t) => t.id))).toEqual(new Set(['a']));
    c.api.fault = (r) => (r.client === 'a' ? { kind: 'drop-response' } : undefined);
    c.runUntil(60_000);
    const aEnd = c.terms.find((t) => t.id === 'a')?.end ?? 0;
    const bStart = c.terms.find((t) => t.id === 'b')?.start ?? 0;
    expect(aEnd).toBeGreaterThan(10_000);
    expect(ticks.filter((t) => t.id === 'a').every((t) => t.at < aEnd)).toBe(true);
    expect(ticks.filter((t) => t.id === 'b').every((t) => t.at > bStart)).toBe(true);
    expect(ticks.some((t) => t.id === 'b')).toBe(true);
    subs.forEach((s) => s.unsubscribe());
  });

  it('isLeading() is clock-checked: false after the renew deadline even before the deadline timer runs (paused process)', () => {
    const c = cluster(9);
    const a = c.start('a');
    c.runUntil(1_000);
    expect(a.election.isLeading()).toBe(true);
    a.process.pause(30_000);
    c.runUntil(20_000);
    // The process is frozen: its timers have not run, leading$ has not flipped yet...
    expect(c.leaders()).toEqual(['a']);
    // ...but its clock moved on, so anything that checks before acting sees it is no longer leader.
    expect(a.election.isLeading()).toBe(false);
    c.runUntil(40_000);
    expect(c.leaders()).toEqual(['a']); // it renewed after resuming: nobody else competed
  });

  it('starting = subscribing, stopping = unsubscribing: all streams share one candidate', () => {
    const c = cluster(11);
    const a = c.start('a');
    c.runUntil(1_000);
    const requestsBefore = c.api.requests;
    const extra = [a.election.leader$.subscribe(), a.election.state$.subscribe()];
    c.runUntil(10_000);
    // renewals every 2 s by ONE candidate: ~4-5 updates, not multiplied by subscribers
    expect(c.api.requests - requestsBefore).toBeLessThanOrEqual(5);
    extra.forEach((s) => s.unsubscribe());
    c.stop('a');
    const afterStop = c.api.requests;
    c.runUntil(60_000);
    expect(c.api.requests).toBe(afterStop);
  });
});
