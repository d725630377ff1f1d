/**
 * The manager over rxkube's real Lease-based leader election (src/leader-election) against the
 * in-memory Lease API, in virtual time: exactly one of three managers runs its controllers, never
 * two at once, and failover after a stop takes at most leaseDuration + a jittered retry.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';
import type { Manager } from '../../src/manager/manager.js';
import { leaseLeadership } from '../../src/manager/index.js';
import { manager } from '../../src/manager/manager.js';
import { ApiError } from '../../src/client/api-error.js';
import type { Logger } from '../../src/logging/logger.js';
import { outcome, virtualTime } from './virtual-time.js';
import type { VirtualTime } from './virtual-time.js';

interface Candidate {
  readonly name: string;
  readonly mgr: Manager;
  readonly stop: AbortController;
  readonly result: ReturnType<typeof outcome>;
}

function cluster(vt: VirtualTime, api: InMemoryLeaseApi, names: readonly string[], releaseOnCancel = false) {
  const active = new Set<string>();
  const intervals: { name: string; from: number; to?: number }[] = [];
  let overlap = false;
  const candidates: Candidate[] = names.map((name) => {
    const mgr = manager({
      scheduler: vt.scheduler,
      gracefulShutdownTimeoutMs: 5_000,
      leaderElection: {
        id: 'rxkube-lock',
        namespace: 'kube-system',
        identity: name,
        releaseOnCancel,
        elector: leaseLeadership(api.client(name), { scheduler: vt.scheduler }),
      },
    });
    mgr.add({
      name: `${name}-controller`,
      start: (signal) =>
        new Promise<void>((resolve) => {
          if (active.size > 0) overlap = true;
          active.add(name);
          const interval: { name: string; from: number; to?: number } = { name, from: vt.scheduler.now() };
          intervals.push(interval);
          signal.addEventListener('abort', () => {
            active.delete(name);
            interval.to = vt.scheduler.now();
            resolve();
          });
        }),
    });
    const stop = new AbortController();
    return { name, mgr, stop, result: outcome(mgr.start(stop.signal)) };
  });
  return { candidates, active, intervals, overlap: () => overlap };
}

describe('manager + leaseLeadership (virtual time, in-memory Lease API)', () => {
  it('exactly one of three leads; after the leader stops another takes over within lease + retry, never overlapping', async () => {
    const vt = virtualTime();
    const api = new InMemoryLeaseApi({ scheduler: vt.scheduler });
    const c = cluster(vt, api, ['a', 'b', 'c']);
    await vt.advance(1_000);
    expect(c.active.size).toBe(1);
    const [first] = [...c.active];
    await vt.advance(60_000);
    expect([...c.active]).toEqual([first]);
    expect(await c.candidates.find((x) => x.name === first)?.mgr.metrics.text()).toContain(
      'leader_election_master_status{name="rxkube-lock"} 1',
    );

    const leader = c.candidates.find((x) => x.name === first) as Candidate;
    const stoppedAt = vt.scheduler.now();
    leader.stop.abort();
    await vt.advance(0);
    expect(c.active.size).toBe(0);
    for (let t = 0; t < 20_000 && c.active.size === 0; t += 100) await vt.advance(100);
    expect(c.active.size).toBe(1);
    const next = c.intervals.at(-1);
    expect(next?.name).not.toBe(first);
    expect((next?.from ?? Infinity) - stoppedAt).toBeLessThanOrEqual(15_000 + 2.2 * 2_000);
    expect(leader.result.settled && leader.result.error === undefined).toBe(true);
    expect(c.overlap()).toBe(false);

    for (const x of c.candidates) x.stop.abort();
    await vt.advance(10_000);
    expect(c.candidates.every((x) => x.result.settled)).toBe(true);
  });

  it('with releaseOnCancel the lease is handed over within about one retry period', async () => {
    const vt = virtualTime();
    const api = new InMemoryLeaseApi({ scheduler: vt.scheduler });
    const c = cluster(vt, api, ['a', 'b'], true);
    await vt.advance(1_000);
    const [first] = [...c.active];
    const leader = c.candidates.find((x) => x.name === first) as Candidate;
    const stoppedAt = vt.scheduler.now();
    leader.stop.abort();
    for (let t = 0; t < 20_000 && c.active.size === 0; t += 100) await vt.advance(100);
    await vt.advance(100);
    for (let t = 0; t < 20_000 && c.active.size === 0; t += 100) await vt.advance(100);
    const next = c.intervals.at(-1);
    expect(next?.name).not.toBe(first);
    expect((next?.from ?? Infinity) - stoppedAt).toBeLessThanOrEqual(2.2 * 2_000 + 100);
    expect(c.overlap()).toBe(false);
    for (const x of c.candidates) x.stop.abort();
    await vt.advance(10_000);
  });

  it('a leader that cannot renew stops its controllers and start rejects with "leader election lost"', async () => {
    const vt = virtualTime();
    const api = new InMemoryLeaseApi({ scheduler: vt.scheduler });
    const c = cluster(vt, api, ['a', 'b']);
    await vt.advance(1_000);
    const [first] = [...c.active];
    const leader = c.candidates.find((x) => x.name === first) as Candidate;
    const cutAt = vt.scheduler.now();
    api.fault = (req) => (req.client === first ? { kind: 'drop-request' } : undefined);
    for (let t = 0; t < 20_000 && leader.result.settled === false; t += 100) await vt.advance(100);
    expect(String(leader.result.error)).toContain('leader election lost');
    const lostAt = c.intervals.find((i) => i.name === first)?.to ?? Infinity;
    expect(lostAt - cutAt).toBeLessThanOrEqual(10_000);
    for (let t = 0; t < 30_000 && c.active.size === 0; t += 100) await vt.advance(100);
    expect([...c.active]).not.toContain(first);
    expect(c.active.size).toBe(1);
    expect(c.overlap()).toBe(false);
    for (const x of c.candidates) x.stop.abort();
    await vt.advance(10_000);
  });
  it('failed lease reads and writes are logged (a 403 names the lease), and the manager leads once they succeed', async () => {
    const vt = virtualTime();
    const forbidden = new ApiError({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'leases.coordination.k8s.io "rxkube-lock" is forbidden' });
    const api = new InMemoryLeaseApi({ scheduler: vt.scheduler, fault: () => ({ kind: 'error', error: forbidden }) });
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => void warnings.push({ message, ...(fields === undefined ? {} : { fields }) }),
      error: () => undefined,
      child() {
        return this;
      },
    };
    let running = false;
    const mgr = manager({
      scheduler: vt.scheduler,
      logLevel: 'off',
      leaderElection: { id: 'rxkube-lock', namespace: 'kube-system', identity: 'a', elector: leaseLeadership(api.client('a'), { scheduler: vt.scheduler, logger }) },
    });
    mgr.add({ name: 'work', start: (signal) => new Promise<void>((resolve) => { running = true; signal.addEventListener('abort', () => resolve()); }) });
    const stop = new AbortController();
    const result = outcome(mgr.start(stop.signal));
    await vt.advance(5_000);
    expect(running).toBe(false);
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(warnings[0]).toMatchObject({ message: 'failed to acquire or renew the leader lease', fields: { lease: 'kube-system/rxkube-lock', identity: 'a' } });
    expect((warnings[0]?.fields?.['err'] as ApiError).statusCode).toBe(403);
    api.fault = undefined;
    await vt.advance(5_000);
    expect(running).toBe(true);
    stop.abort();
    await vt.advance(10_000);
    expect(result.settled).toBe(true);
  });
});
