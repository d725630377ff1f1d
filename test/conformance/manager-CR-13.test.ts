/** docs/semantics.md §8.5 CR-13. Ordering and grace run in virtual time; fake runnables log `<t> <name>:<event>`. */
import { manager } from '../../src/manager/manager.js';
import { electorStub } from '../manager/elector-stub.js';
import { fakeRunnable, outcome, virtualTime } from '../manager/virtual-time.js';
import { describe, expect, it } from 'vitest';

describe('CR-13 Start order', () => {
  it('HTTP servers → caches (all synced) → others → leader-election runnables once elected', async () => {
    const vt = virtualTime();
    const e = electorStub();
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

  it('the Warmup group starts after the others and before campaigning; its runnables start once elected', async () => {
    const vt = virtualTime();
    const e = electorStub();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'l', namespace: 'ns', elector: e.factory } });
    mgr.add({ ...fakeRunnable(vt, 'ctrl'), warmup: () => {
      vt.record(`ctrl:warmup campaign=${e.events.length}`);
    } });
    mgr.add(fakeRunnable(vt, 'other', { needLeaderElection: false }));
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 30 }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(100);
    expect(e.events).toEqual(['campaign']);
    e.leading.next(true);
    await vt.advance(1);
    expect(vt.log).toEqual(['0 cache:start', '30 cache:synced', '30 other:start', '30 ctrl:warmup campaign=0', '100 ctrl:start']);
    ac.abort();
    await vt.advance(1);
    expect(o.settled).toBe(true);
  });

  it('webhook servers start after the HTTP servers and before the caches, which wait until they listen', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'ctrl'));
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 5 }));
    mgr.add({ ...fakeRunnable(vt, 'webhook'), isWebhookServer: true, needLeaderElection: false, listening: vt.sleep(20) });
    mgr.add(fakeRunnable(vt, 'http', { isHttpServer: true }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(50);
    expect(vt.log).toEqual(['0 http:start', '0 webhook:start', '20 cache:start', '25 cache:synced', '25 ctrl:start']);
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
