/**
 * SEMANTICS §8.5 (controller-runtime manager), rules CR-11..CR-14, one describe per rule. Ordering
 * and grace run in virtual time (VirtualTimeScheduler driven by `advance`); runnables are fakes that
 * log `<t> <name>:<event>`.
 */
import { hostname } from 'node:os';
import { Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  classifyRunnable,
  httpServerRunnable,
  manager,
  resolveManagerLeaderElection,
  toRunnable,
} from '../../src/manager/index.js';
import type { ManagerLeaderElectionConfig, Leadership } from '../../src/manager/index.js';
import { fakeRunnable, outcome, virtualTime } from '../manager/virtual-time.js';

function elector() {
  const leading = new Subject<boolean>();
  const events: string[] = [];
  const factory = (_c: ManagerLeaderElectionConfig): Leadership => ({
    leading$: new Observable<boolean>((sub) => {
      events.push('campaign');
      const s = leading.subscribe(sub);
      return () => {
        events.push('cancel');
        s.unsubscribe();
      };
    }),
  });
  return { leading, events, factory };
}

describe('CR-11 Defaults', () => {
  it('lease 15s, renew 10s, retry 2s, identity <hostname>_<uuid>, id required, namespace from the in-cluster file', () => {
    const cfg = resolveManagerLeaderElection({ id: 'lock', elector: elector().factory }, () => 'from-file');
    expect(cfg).toMatchObject({ id: 'lock', namespace: 'from-file', leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 });
    expect(cfg.identity.startsWith(`${hostname()}_`)).toBe(true);
    expect(cfg.identity.slice(hostname().length + 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(() => resolveManagerLeaderElection({ id: '', elector: elector().factory }, () => 'ns')).toThrow('LeaderElectionID must be configured');
    expect(() => resolveManagerLeaderElection({ id: 'x', elector: elector().factory }, () => undefined)).toThrow(/leader election namespace/);
    expect(resolveManagerLeaderElection({ id: 'x', namespace: 'given', elector: elector().factory }, () => 'file').namespace).toBe('given');
  });

  it('graceful shutdown timeout defaults to 30s', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'stuck', { stopAfter: Infinity }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(0);
    expect(vt.log).toEqual(['0 stuck:start']);
    ac.abort();
    await vt.advance(29_999);
    expect(o.settled).toBe(false);
    await vt.advance(1);
    expect(String(o.error)).toContain('grace period of 30s');
  });

  it('probe paths default to /healthz and /readyz', async () => {
    const mgr = manager({ health: { host: '127.0.0.1', port: 0, cacheSyncCheck: false } });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    const { port } = await mgr.healthAddress();
    for (const p of ['/healthz', '/readyz']) {
      const res = await fetch(`http://127.0.0.1:${port}${p}`);
      expect([p, res.status, await res.text()]).toEqual([p, 200, 'ok']);
    }
    ac.abort();
    await done;
  });
});

describe('CR-12 Runnable classification', () => {
  const start = () => Promise.resolve();
  it('HTTP servers, caches, needLeaderElection=false and the default group', () => {
    expect(classifyRunnable(httpServerRunnable({ name: 'm', port: 0, handler: () => undefined }))).toBe('httpServers');
    expect(classifyRunnable(httpServerRunnable({ name: 'm', port: 0, handler: () => undefined, needLeaderElection: true }))).toBe('leaderElection');
    expect(classifyRunnable({ start, waitForSync: () => Promise.resolve(true) })).toBe('caches');
    expect(classifyRunnable({ start, synced$: new Subject<boolean>() })).toBe('caches');
    expect(classifyRunnable({ start, needLeaderElection: false })).toBe('others');
    expect(classifyRunnable({ start, needLeaderElection: () => false })).toBe('others');
    expect(classifyRunnable({ start, needLeaderElection: true })).toBe('leaderElection');
    expect(classifyRunnable({ start })).toBe('leaderElection');
    expect(classifyRunnable(toRunnable(() => undefined))).toBe('leaderElection');
  });
});

describe('CR-13 Start order', () => {
  it('HTTP servers → caches (all synced) → others → leader-election runnables once elected', async () => {
    const vt = virtualTime();
    const e = elector();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'l', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false }));
    mgr.add(fakeRunnable(vt, 'cacheA', { syncAfter: 30 }));
    mgr.add(fakeRunnable(vt, 'cacheB', { syncAfter: 60 }));
    mgr.add(fakeRunnable(vt, 'http', { isHttpServer: true }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(100);
    expect(e.events).toEqual(['campaign']);
    e.leading.next(true);
    await vt.advance(1);
    expect(vt.log).toEqual([
      '0 http:start', '0 cacheA:start', '0 cacheB:start', '30 cacheA:synced', '60 cacheB:synced',
      '60 other:start', '100 ctrl:start',
    ]);
    ac.abort();
    await vt.advance(1);
    expect(o.settled).toBe(true);
  });

  it('without leader election the leader-election runnables start at once and the manager counts as elected', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(1);
    await mgr.elected();
    expect(vt.log).toEqual(['0 ctrl:start']);
    ac.abort();
    await vt.advance(1);
    expect(o.settled).toBe(true);
  });

  it('runnables (caches too) added after start start immediately', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(50);
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 1 }));
    mgr.add(fakeRunnable(vt, 'ctrl'));
    await vt.advance(1);
    expect(vt.log).toEqual(['50 cache:start', '50 ctrl:start', '51 cache:synced']);
    ac.abort();
    await vt.advance(1);
    expect(o.settled).toBe(true);
  });

  it('a second start fails with "manager already started"', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await expect(mgr.start(ac.signal)).rejects.toThrow('manager already started');
    ac.abort();
    await vt.advance(1);
    expect(o.error).toBeUndefined();
  });

  it('any runnable error makes start reject with it, after the stop procedure', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: 7 }));
    mgr.add(fakeRunnable(vt, 'broken', { needLeaderElection: false, failAfter: 10 }));
    const o = outcome(mgr.start(new AbortController().signal));
    await vt.advance(16);
    expect(o.settled).toBe(false);
    await vt.advance(1);
    expect((o.error as Error).message).toBe('broken failed');
    expect(vt.log.slice(-2)).toEqual(['10 ctrl:abort', '17 ctrl:stopped']);
  });
});

describe('CR-14 Stop order & grace', () => {
  it('others → leader-election runnables → caches → HTTP servers; the election is cancelled after them', async () => {
    const vt = virtualTime();
    const e = elector();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'l', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'http', { isHttpServer: true, stopAfter: 1 }));
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 0, stopAfter: 1 }));
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false, stopAfter: 1 }));
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: 1 }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(1);
    e.leading.next(true);
    await vt.advance(9);
    vt.log.length = 0;
    ac.abort();
    await vt.advance(3);
    expect(e.events).toEqual(['campaign']);
    await vt.advance(10);
    expect(e.events).toEqual(['campaign', 'cancel']);
    expect(vt.log).toEqual([
      '10 other:abort', '11 other:stopped', '11 ctrl:abort', '12 ctrl:stopped',
      '12 cache:abort', '13 cache:stopped', '13 http:abort', '14 http:stopped',
    ]);
    expect(o.settled && o.error === undefined).toBe(true);
  });

  it('timeout > 0 is an error when exceeded; 0 does not wait; < 0 waits forever', async () => {
    for (const [timeout, expectAt, message] of [[5_000, 5_000, 'failed waiting for all runnables to end within grace period of 5s'], [0, 0, undefined]] as const) {
      const vt = virtualTime();
      const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeout: timeout });
      mgr.add(fakeRunnable(vt, 'stuck', { stopAfter: Infinity }));
      const ac = new AbortController();
      const o = outcome(mgr.start(ac.signal));
      await vt.advance(0);
      ac.abort();
      if (expectAt > 0) {
        await vt.advance(expectAt - 1);
        expect(o.settled).toBe(false);
      }
      await vt.advance(1);
      expect(o.settled).toBe(true);
      expect(o.error === undefined ? undefined : (o.error as Error).message).toBe(message);
    }
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeout: -1 });
    mgr.add(fakeRunnable(vt, 'slow', { stopAfter: 86_400_000 }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(0);
    ac.abort();
    await vt.advance(86_399_999);
    expect(o.settled).toBe(false);
    await vt.advance(1);
    expect(o.settled && o.error === undefined).toBe(true);
  });

  it('losing leadership returns "leader election lost" without a graceful wait', async () => {
    const vt = virtualTime();
    const e = elector();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'l', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: Infinity }));
    const o = outcome(mgr.start(new AbortController().signal));
    await vt.advance(1);
    e.leading.next(true);
    await vt.advance(1);
    e.leading.next(false);
    await vt.advance(0);
    expect((o.error as Error).message).toBe('leader election lost');
  });

  it('refuses new runnables once stopping, and a non-elected manager never starts leader-election runnables', async () => {
    const vt = virtualTime();
    const e = elector();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'l', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false, stopAfter: 20 }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(1);
    ac.abort();
    await vt.advance(1);
    expect(() => mgr.add(fakeRunnable(vt, 'late', { needLeaderElection: false }))).toThrow(
      "can't accept new runnable as stop procedure is already engaged",
    );
    e.leading.next(true);
    await vt.advance(50);
    expect(o.settled).toBe(true);
    expect(vt.log.some((l) => l.includes('ctrl:') || l.includes('late:'))).toBe(false);
  });
});
