import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { type LeaderElectionConfig } from '../../src/leader-election/index.js';
import { formatMicroTime } from '../../src/leader-election/lease.js';
import { leaderElection } from '../../src/leader-election/leader-election.js';
import { LeaseLock } from '../../src/leader-election/lease-lock.js';
import { InMemoryLeaseApi, type LeaseRequest } from '../../src/testing/in-memory-lease-api.js';
import { LEASE_REF } from '../leader-election/helpers/harness.js';
import { marbles } from '../helpers/marbles.js';

const B = { f: false, t: true };
const failure = () => ({ kind: 'error' as const, error: new ApiError({ code: 503, reason: 'ServiceUnavailable' }) });

// LE-5 run loop: acquire with jittered retries, renew every retryPeriod, stop at the renew deadline.
describe('LE-5 acquire / renew loop (virtual time)', () => {
  function setup(m: { scheduler: LeaderElectionConfig['scheduler'] }, config: Partial<LeaderElectionConfig> = {}) {
    const requests: LeaseRequest[] = [];
    let failFrom = Number.POSITIVE_INFINITY;
    const api = new InMemoryLeaseApi({
      scheduler: m.scheduler,
      fault: (r) => {
        requests.push(r);
        return r.client === 'me' && r.at >= failFrom ? failure() : undefined;
      },
    });
    const election = leaderElection({ lock: new LeaseLock(api.client('me'), LEASE_REF, 'me'), scheduler: m.scheduler, ...config });
    return { api, requests, election, failFrom: (t: number) => (failFrom = t) };
  }

  it(
    'acquires a free lease at once and renews every retryPeriod via the fast path',
    marbles((m) => {
      const { election, requests } = setup(m);
      m.expect(election.leading$, '^ 9000ms !').toBeObservable('(ft)', B);
      m.flush();
      const mine = requests.filter((r) => r.client === 'me');
      expect(mine.map((r) => `${r.op}@${r.at}`)).toEqual(['get@0', 'create@0', 'update@2000', 'update@4000', 'update@6000', 'update@8000']);
    }),
  );

  it(
    'stops leading renewDeadline after the start of the last successful write when renewals fail',
    marbles((m) => {
      const { election, failFrom } = setup(m);
      failFrom(1);
      m.expect(election.leading$, '^ 12000ms !').toBeObservable('(ft) 9996ms f', B);
    }),
  );

  it(
    'measures the renew deadline from the START of the last successful attempt (latency counts against it)',
    marbles((m) => {
      const { election, api, failFrom } = setup(m);
      api.latency = () => ({ request: 300, response: 300 });
      failFrom(4000);
      // acquire: get 0→600, create 600→1200 (leading at 1200); renew starts 3200, succeeds at 3800;
      // every later attempt fails → deadline 3200 + 10000 = 13200.
      m.expect(election.leading$, '^ 20000ms !').toBeObservable('f 1199ms t 11999ms f', B);
    }),
  );

  it(
    'retries acquisition after retryPeriod × [1, 2.2) (jitter) while another holder renews',
    marbles((m) => {
      const randoms = [0, 0.999, 0.5, 0.25];
      let i = 0;
      const { election, requests, api } = setup(m, { random: () => randoms[i++ % randoms.length] ?? 0 });
      const other = leaderElection({ lock: new LeaseLock(api.client('other'), LEASE_REF, 'other'), scheduler: m.scheduler });
      const otherSub = other.leading$.subscribe();
      m.scheduler.schedule(() => {
        const sub = election.leading$.subscribe();
        m.scheduler.schedule(() => sub.unsubscribe(), 14_000);
      }, 1);
      m.scheduler.schedule(() => otherSub.unsubscribe(), 30_000);
      m.flush();
      const gets = requests.filter((r) => r.client === 'me').map((r) => r.at);
      expect(gets[0]).toBe(1);
      const waits = gets.slice(1).map((t, k) => t - (gets[k] ?? 0));
      // 2000 × (1 + 1.2 × r) for r = 0, 0.999, 0.5, 0.25
      expect(waits).toHaveLength(4);
      [2000, 4397.6, 3200, 2600].forEach((expected, k) => expect(waits[k]).toBeCloseTo(expected, 6));
    }),
  );

  it(
    'takes a lease whose holder stopped renewing exactly when it expires (from its own observation)',
    marbles((m) => {
      const { election, api } = setup(m, { random: () => 0.999 });
      api
        .create({
          metadata: { name: LEASE_REF.name, namespace: LEASE_REF.namespace },
          spec: { holderIdentity: 'ghost', leaseDurationSeconds: 15, renewTime: formatMicroTime(0), acquireTime: formatMicroTime(0), leaseTransitions: 0 },
        })
        .subscribe();
      // Jittered waits would be ~4397.6 ms each (attempts at 0, ~4398, ~8795, ~13193, ~17590); the wait is cut at 15000.
      m.expect(election.leading$, '^ 20000ms !').toBeObservable('f 14999ms t', B);
    }),
  );

  it(
    'regression: when the lease expires while an attempt (that still saw it valid) is in flight, retries at once',
    marbles((m) => {
      const { election, api } = setup(m, { random: () => 0 });
      api
        .create({
          metadata: { name: LEASE_REF.name, namespace: LEASE_REF.namespace },
          spec: { holderIdentity: 'ghost', leaseDurationSeconds: 15, renewTime: formatMicroTime(0), acquireTime: formatMicroTime(0), leaseTransitions: 0 },
        })
        .subscribe();
      api.latency = () => ({ request: 1_000, response: 1_000 });
      // first get observed at 2000 → expiry 17000; attempts start 4000, 8000, 12000, 16000 (each a 2 s
      // get); the one started at 16000 sees a valid lease and ends at 18000 after the expiry →
      // next attempt at once: get 18000→20000, update 20000→22000. (A full retry wait would lead at 24000.)
      m.expect(election.leading$, '^ 30000ms !').toBeObservable('f 21999ms t', B);
    }),
  );

  it(
    'onStoppedLeading is called when the election stops even if it never led; no request after stop',
    marbles((m) => {
      let stopped = 0;
      let started = 0;
      const { election, api, requests } = setup(m, { onStoppedLeading: () => stopped++, onStartedLeading: () => started++ });
      api.fault = (r) => {
        requests.push(r);
        return failure();
      };
      m.expect(election.leading$, '^ 5000ms !').toBeObservable('f', B);
      m.flush();
      expect(started).toBe(0);
      expect(stopped).toBe(1);
      expect(requests.every((r) => r.at <= 5000)).toBe(true);
      expect(requests.length).toBeGreaterThan(0);
    }),
  );

  it(
    'onStartedLeading / onStoppedLeading fire on each term (after the leading$ change)',
    marbles((m) => {
      const log: string[] = [];
      const { election, failFrom } = setup(m, {
        onStartedLeading: () => log.push(`start@${m.scheduler.now()}`),
        onStoppedLeading: () => log.push(`stop@${m.scheduler.now()}`),
      });
      failFrom(1);
      const sub = election.leading$.subscribe();
      m.scheduler.schedule(() => sub.unsubscribe(), 11_000);
      m.flush();
      expect(log).toEqual(['start@0', 'stop@10000', 'stop@11000']);
    }),
  );
});
