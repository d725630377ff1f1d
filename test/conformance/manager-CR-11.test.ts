/** docs/semantics.md §8.5 CR-11. Ordering and grace run in virtual time; fake runnables log `<t> <name>:<event>`. */
import { hostname } from 'node:os';
import { manager } from '../../src/manager/manager.js';
import { resolveManagerLeaderElection } from '../../src/manager/leader-election-options.js';
import { electorStub } from '../manager/elector-stub.js';
import { fakeRunnable, outcome, virtualTime } from '../manager/virtual-time.js';
import { describe, expect, it } from 'vitest';

describe('CR-11 Defaults', () => {
  it('lease 15s, renew 10s, retry 2s, identity <hostname>_<uuid>, id required, namespace from the in-cluster file', () => {
    const cfg = resolveManagerLeaderElection({ id: 'lock', elector: electorStub().factory }, () => 'from-file');
    expect(cfg).toMatchObject({ id: 'lock', namespace: 'from-file', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(cfg.identity.startsWith(`${hostname()}_`)).toBe(true);
    expect(cfg.identity.slice(hostname().length + 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(() => resolveManagerLeaderElection({ id: '', elector: electorStub().factory }, () => 'ns')).toThrow('LeaderElectionID must be configured');
    expect(() => resolveManagerLeaderElection({ id: 'x', elector: electorStub().factory }, () => undefined)).toThrow(/leader election namespace/);
    expect(resolveManagerLeaderElection({ id: 'x', namespace: 'given', elector: electorStub().factory }, () => 'file').namespace).toBe('given');
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
