import { BehaviorSubject, Observable, Subject, finalize } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { GracefulShutdownTimeoutError, LeaderElectionLostError, ManagerConfigError } from '../../src/manager/index.js';
import { StopEngagedError } from '../../src/manager/manager-errors.js';
import { manager } from '../../src/manager/manager.js';
import type { ManagerLeaderElectionConfig } from '../../src/manager/leader-election-options.js';
import { fakeRunnable, outcome, settle, virtualTime } from './virtual-time.js';

function electorStub() {
  const leading = new Subject<boolean>();
  const events: string[] = [];
  let config: ManagerLeaderElectionConfig | undefined;
  return {
    leading,
    events,
    config: () => config,
    factory: (c: ManagerLeaderElectionConfig) => {
      config = c;
      return {
        leading$: new Observable<boolean>((sub) => {
          events.push('subscribed');
          const s = leading.subscribe(sub);
          return () => {
            events.push('unsubscribed');
            s.unsubscribe();
          };
        }),
      };
    },
  };
}

describe('manager lifecycle (virtual time)', () => {
  it('starts HTTP servers, then caches until synced, then others, then leader-election runnables', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'controller'));
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false }));
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 100 }));
    mgr.add(fakeRunnable(vt, 'http', { isHttpServer: true }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(500);
    expect(vt.log).toEqual(['0 http:start', '0 cache:start', '100 cache:synced', '100 other:start', '100 controller:start']);
    ac.abort();
    await vt.advance(1);
    await expect(done).resolves.toBeUndefined();
  });

  it('stops others, then leader-election runnables, then caches, then HTTP servers, each after the previous ended', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'http', { isHttpServer: true, stopAfter: 5 }));
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 0, stopAfter: 5 }));
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false, stopAfter: 10 }));
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: 20 }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(100);
    vt.log.length = 0;
    ac.abort();
    await vt.advance(1000);
    await expect(done).resolves.toBeUndefined();
    expect(vt.log).toEqual([
      '100 other:abort', '110 other:stopped',
      '110 ctrl:abort', '130 ctrl:stopped',
      '130 cache:abort', '135 cache:stopped',
      '135 http:abort', '140 http:stopped',
    ]);
  });

  it('rejects with the first runnable error after running the stop procedure', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: 3 }));
    mgr.add(fakeRunnable(vt, 'bad', { needLeaderElection: false, failAfter: 50 }));
    const done = mgr.start(new AbortController().signal);
    let settled = false;
    done.catch(() => undefined).finally(() => (settled = true));
    await vt.advance(52);
    expect(settled).toBe(false);
    await vt.advance(10);
    await expect(done).rejects.toThrow('bad failed');
    expect(vt.log).toEqual(['0 bad:start', '0 ctrl:start', '50 bad:fail', '50 ctrl:abort', '53 ctrl:stopped']);
  });

  it('refuses a second start', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    const ac = new AbortController();
    const first = mgr.start(ac.signal);
    await expect(mgr.start(ac.signal)).rejects.toThrow('manager already started');
    ac.abort();
    await vt.advance(1);
    await first;
  });

  it('starts runnables added after start immediately in their group, caches included', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(10);
    mgr.add(fakeRunnable(vt, 'late-cache', { syncAfter: 5 }));
    mgr.add(fakeRunnable(vt, 'late-ctrl'));
    await vt.advance(10);
    expect(vt.log).toEqual(['10 late-cache:start', '10 late-ctrl:start', '15 late-cache:synced']);
    ac.abort();
    await vt.advance(1);
    await done;
  });

  it('accepts Observable runnables and bare start functions', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(() => new Observable<never>(() => {
      vt.record('obs:subscribed');
      return () => vt.record('obs:unsubscribed');
    }));
    mgr.add({ needLeaderElection: false, start: () => new Observable<number>((s) => s.complete()).pipe(finalize(() => vt.record('done'))) });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(5);
    ac.abort();
    await vt.advance(1);
    await done;
    expect(vt.log).toEqual(['0 done', '0 obs:subscribed', '5 obs:unsubscribed']);
  });

  it('refuses runnables once the stop procedure is engaged', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'slow', { stopAfter: 100 }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(1);
    ac.abort();
    await vt.advance(1);
    expect(() => mgr.add(fakeRunnable(vt, 'late'))).toThrow(StopEngagedError);
    expect(() => mgr.add(fakeRunnable(vt, 'late'))).toThrow("can't accept new runnable as stop procedure is already engaged");
    await vt.advance(200);
    await done;
  });
});

describe('graceful shutdown timeout (CR-14)', () => {
  it('defaults to 30s and fails when runnables do not end within it', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'stuck', { stopAfter: Infinity }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    let settledAt: number | undefined;
    done.catch(() => undefined).finally(() => (settledAt = vt.scheduler.now()));
    await vt.advance(10);
    ac.abort();
    await vt.advance(29_999);
    expect(settledAt).toBeUndefined();
    await vt.advance(1);
    expect(settledAt).toBe(30_010);
    await expect(done).rejects.toThrow(GracefulShutdownTimeoutError);
    await expect(done).rejects.toThrow('failed waiting for all runnables to end within grace period of 30s');
  });

  it('still stops the later groups once the deadline has passed', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeoutMs: 1000 });
    mgr.add(fakeRunnable(vt, 'stuck', { stopAfter: Infinity }));
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 0 }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    outcome(done);
    await vt.advance(1);
    ac.abort();
    await vt.advance(2000);
    await expect(done).rejects.toThrow('grace period of 1s');
    expect(vt.log).toContain('1001 cache:abort');
  });

  it('does not wait at all with 0', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeoutMs: 0 });
    mgr.add(fakeRunnable(vt, 'stuck', { stopAfter: Infinity }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(1);
    ac.abort();
    await vt.advance(0);
    await expect(done).resolves.toBeUndefined();
  });

  it('waits forever with a negative timeout', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeoutMs: -1 });
    mgr.add(fakeRunnable(vt, 'slow', { stopAfter: 3_600_000 }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    let settled = false;
    void done.finally(() => (settled = true));
    await vt.advance(1);
    ac.abort();
    await vt.advance(3_599_999);
    expect(settled).toBe(false);
    await vt.advance(1);
    expect(settled).toBe(true);
    await expect(done).resolves.toBeUndefined();
  });
});

describe('leader election in the manager', () => {
  it('applies CR-11 defaults and requires an id', () => {
    const e = electorStub();
    const mgr = manager({ leaderElection: { id: 'my-lock', namespace: 'ns', elector: e.factory } });
    expect(mgr.leaderElection).toMatchObject({ id: 'my-lock', namespace: 'ns', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, releaseOnCancel: false });
    expect(mgr.leaderElection?.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
    expect(() => manager({ leaderElection: { id: '', namespace: 'ns', elector: e.factory } })).toThrow(ManagerConfigError);
    expect(() => manager({ leaderElection: { id: 'x', namespace: 'ns', leaseDurationMs: 5000, elector: e.factory } })).toThrow('leaseDurationMs must be greater than renewDeadlineMs');
    expect(() => manager({ leaderElection: { id: 'x', namespace: 'ns', renewDeadlineMs: 2000, elector: e.factory } })).toThrow('renewDeadlineMs must be greater than retryPeriodMs × jitterFactor');
  });

  it('starts leader-election runnables only once elected and cancels the election last', async () => {
    const vt = virtualTime();
    const e = electorStub();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'lock', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false, stopAfter: 1 }));
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: 10 }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    let elected = false;
    void mgr.elected().then(() => (elected = true));
    await vt.advance(100);
    expect(vt.log).toEqual(['0 other:start']);
    expect(elected).toBe(false);
    expect(await mgr.metrics.text()).toContain('leader_election_master_status{name="lock"} 0');
    e.leading.next(true);
    await vt.advance(1);
    expect(vt.log).toEqual(['0 other:start', '100 ctrl:start']);
    expect(elected).toBe(true);
    expect(await mgr.metrics.text()).toContain('leader_election_master_status{name="lock"} 1');
    ac.abort();
    await vt.advance(1);
    expect(e.events).toEqual(['subscribed']);
    await vt.advance(100);
    await done;
    expect(e.events).toEqual(['subscribed', 'unsubscribed']);
    expect(vt.log.slice(-2)).toEqual(['102 ctrl:abort', '112 ctrl:stopped']);
  });

  it('rejects with "leader election lost" and skips the graceful wait when leadership is lost', async () => {
    const vt = virtualTime();
    const e = electorStub();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'lock', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: Infinity }));
    const done = mgr.start(new AbortController().signal);
    outcome(done);
    await vt.advance(1);
    e.leading.next(true);
    await vt.advance(1);
    e.leading.next(false);
    await vt.advance(0);
    await expect(done).rejects.toThrow(LeaderElectionLostError);
    await expect(done).rejects.toThrow('leader election lost');
    expect(vt.log).toEqual(['1 ctrl:start', '2 ctrl:abort']);
  });

  it('never starts leader-election runnables when shutting down before being elected', async () => {
    const vt = virtualTime();
    const e = electorStub();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'lock', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false, stopAfter: 50 }));
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await vt.advance(1);
    ac.abort();
    await vt.advance(1);
    e.leading.next(true);
    await vt.advance(100);
    await done;
    expect(vt.log).not.toContain('2 ctrl:start');
    expect(vt.log.some((l) => l.includes('ctrl:start'))).toBe(false);
  });
});

describe('settle helper', () => {
  it('flushes chained promises', async () => {
    let n = 0;
    void Promise.resolve().then(() => n++).then(() => n++);
    await settle();
    expect(n).toBe(2);
  });
});

describe('manager robustness', () => {
  it('reports an elector factory that throws as a start error after stopping', async () => {
    const vt = virtualTime();
    const mgr = manager({
      scheduler: vt.scheduler,
      leaderElection: { id: 'l', namespace: 'ns', elector: () => { throw new Error('no lease api'); } },
    });
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false }));
    const o = outcome(mgr.start(new AbortController().signal));
    await vt.advance(1);
    expect((o.error as Error).message).toBe('no lease api');
    expect(vt.log).toEqual(['0 other:start', '0 other:abort', '0 other:stopped']);
  });

  it('reports a cache that gives up syncing as a CacheSyncError', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add({ name: 'pods', start: () => new Promise<void>(() => undefined), waitForSync: () => Promise.resolve(false) });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    const o = outcome(mgr.start(new AbortController().signal));
    await vt.advance(30_001);
    expect((o.error as Error).message).toContain('failed to wait for caches to sync: pods');
    expect(vt.log).toEqual([]);
  });

  it('waits for synced$ of cache-like runnables', async () => {
    const vt = virtualTime();
    const synced = new Subject<boolean>();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add({ start: () => new Observable<never>(), synced$: synced });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(5);
    synced.next(false);
    await vt.advance(5);
    expect(vt.log).toEqual([]);
    synced.next(true);
    await vt.advance(1);
    expect(vt.log).toEqual(['10 ctrl:start']);
    ac.abort();
    await vt.advance(1);
    expect(o.settled && o.error === undefined).toBe(true);
  });
});

describe('leadership loss with an infinite grace period', () => {
  it('still skips the graceful wait (timeout forced to 0) and clears the leader gauge', async () => {
    const vt = virtualTime();
    const leading = new Subject<boolean>();
    const mgr = manager({
      scheduler: vt.scheduler,
      gracefulShutdownTimeoutMs: -1,
      leaderElection: { id: 'lock', namespace: 'ns', elector: () => ({ leading$: leading }) },
    });
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: Infinity }));
    const o = outcome(mgr.start(new AbortController().signal));
    await vt.advance(1);
    leading.next(true);
    await vt.advance(1);
    expect(await mgr.metrics.text()).toContain('leader_election_master_status{name="lock"} 1');
    leading.next(false);
    await vt.advance(0);
    expect((o.error as Error).message).toBe('leader election lost');
    expect(await mgr.metrics.text()).toContain('leader_election_master_status{name="lock"} 0');
  });

  it('clears the leader gauge after a normal stop', async () => {
    const vt = virtualTime();
    const leading = new Subject<boolean>();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'lock', namespace: 'ns', elector: () => ({ leading$: leading }) } });
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(1);
    leading.next(true);
    await vt.advance(1);
    ac.abort();
    await vt.advance(1);
    expect(o.settled && o.error === undefined).toBe(true);
    expect(await mgr.metrics.text()).toContain('leader_election_master_status{name="lock"} 0');
  });
});

describe('cacheRunnable', () => {
  it('keeps the source subscribed while running and gates controllers on synced$', async () => {
    const vt = virtualTime();
    const { cacheRunnable } = await import('../../src/api/runnable.js');
    const synced = new BehaviorSubject(false);
    const source = new Observable<number>(() => {
      vt.record('source:subscribed');
      return () => vt.record('source:unsubscribed');
    });
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(cacheRunnable({ name: 'pods', source, synced$: synced }));
    mgr.add(fakeRunnable(vt, 'ctrl'));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(10);
    synced.next(true);
    await vt.advance(1);
    ac.abort();
    await vt.advance(1);
    expect(o.settled && o.error === undefined).toBe(true);
    expect(vt.log).toEqual(['0 source:subscribed', '10 ctrl:start', '11 ctrl:abort', '11 ctrl:stopped', '11 source:unsubscribed']);
  });

  it('prefers synced$ over a waitForSync with another signature', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add({
      start: () => new Observable<never>(),
      synced$: new BehaviorSubject(true),
      waitForSync: (timeout: unknown) => Promise.resolve(typeof timeout === 'number'),
    });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(1);
    expect(vt.log).toEqual(['0 ctrl:start']);
    ac.abort();
    await vt.advance(1);
    expect(o.settled && o.error === undefined).toBe(true);
  });
});
