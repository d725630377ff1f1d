/** docs/semantics.md §8.5 CR-14. Ordering and grace run in virtual time; fake runnables log `<t> <name>:<event>`. */
import { manager } from '../../src/manager/manager.js';
import { electorStub } from '../manager/elector-stub.js';
import { fakeRunnable, outcome, virtualTime } from '../manager/virtual-time.js';
import { describe, expect, it } from 'vitest';

describe('CR-14 Stop order & grace', () => {
  it('webhook servers stop after the caches and before the HTTP servers (they may still be answering)', async () => {
    const vt = virtualTime();
    const mgr = manager({ scheduler: vt.scheduler });
    mgr.add(fakeRunnable(vt, 'http', { isHttpServer: true, stopAfter: 1 }));
    mgr.add({ ...fakeRunnable(vt, 'webhook', { stopAfter: 1 }), isWebhookServer: true });
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 0, stopAfter: 1 }));
    mgr.add(fakeRunnable(vt, 'ctrl', { stopAfter: 1 }));
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(10);
    vt.log.length = 0;
    ac.abort();
    await vt.advance(10);
    expect(vt.log).toEqual([
      '10 ctrl:abort', '11 ctrl:stopped', '11 cache:abort', '12 cache:stopped',
      '12 webhook:abort', '13 webhook:stopped', '13 http:abort', '14 http:stopped',
    ]);
    expect(o.settled && o.error === undefined).toBe(true);
  });

  it('others → leader-election runnables → caches → HTTP servers; the election is cancelled after them', async () => {
    const vt = virtualTime();
    const e = electorStub();
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

  it('the Warmup group stops after the leader-election runnables and before the caches', async () => {
    const vt = virtualTime();
    const e = electorStub();
    const mgr = manager({ scheduler: vt.scheduler, leaderElection: { id: 'l', namespace: 'ns', elector: e.factory } });
    mgr.add(fakeRunnable(vt, 'cache', { syncAfter: 0, stopAfter: 1 }));
    const warm = fakeRunnable(vt, 'ctrl-warmup', { stopAfter: 1 });
    mgr.add({ ...fakeRunnable(vt, 'ctrl', { stopAfter: 1 }), warmup: (signal: AbortSignal) => warm.start(signal) });
    const ac = new AbortController();
    const o = outcome(mgr.start(ac.signal));
    await vt.advance(1);
    e.leading.next(true);
    await vt.advance(9);
    vt.log.length = 0;
    ac.abort();
    await vt.advance(10);
    expect(vt.log).toEqual([
      '10 ctrl:abort', '11 ctrl:stopped', '11 ctrl-warmup:abort', '12 ctrl-warmup:stopped', '12 cache:abort', '13 cache:stopped',
    ]);
    expect(o.settled && o.error === undefined).toBe(true);
  });

  it('timeout > 0 is an error when exceeded; 0 does not wait; < 0 waits forever', async () => {
    for (const [timeout, expectAt, message] of [[5_000, 5_000, 'failed waiting for all runnables to end within grace period of 5s'], [0, 0, undefined]] as const) {
      const vt = virtualTime();
      const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeoutMs: timeout });
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
    const mgr = manager({ scheduler: vt.scheduler, gracefulShutdownTimeoutMs: -1 });
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
    const e = electorStub();
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
    const e = electorStub();
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
