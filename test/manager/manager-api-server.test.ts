/**
 * Managers with the default (Lease) leader election against the embedded API server over real
 * HTTP, with short real-time durations (lease 2 s, renew 1.5 s, retry 0.5 s): exactly one leads,
 * no two run their controllers at any observed instant, and after the leader stops another takes
 * over within leaseDuration + a jittered retry (plus HTTP slack).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Manager } from '../../src/manager/manager.js';
import { manager } from '../../src/manager/manager.js';
import type { ApiServer } from '@rxkube/testkit';
import { startApiServer } from '@rxkube/testkit';

let server: ApiServer | undefined;
const managers: Manager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) m.client.close();
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('manager leader election over HTTP (embedded API server)', () => {
  it('one of three leads, never two at once, and failover takes at most lease + retry', async () => {
    server = await startApiServer();
    const srv = server;
    const active = new Set<string>();
    let overlap = false;
    const starts: { name: string; at: number }[] = [];
    const runs = ['a', 'b', 'c'].map((name) => {
      const mgr = manager({
        kubeConfig: srv.kubeConfig,
        gracefulShutdownTimeoutMs: 2_000,
        leaderElection: { id: 'rxkube-test', namespace: 'kube-system', identity: name, leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 500 },
      });
      managers.push(mgr);
      mgr.add({
        start: (signal) =>
          new Promise<void>((resolve) => {
            if (active.size > 0) overlap = true;
            active.add(name);
            starts.push({ name, at: Date.now() });
            signal.addEventListener('abort', () => {
              active.delete(name);
              resolve();
            });
          }),
      });
      const stop = new AbortController();
      const done = mgr.start(stop.signal).then(
        () => undefined,
        (e: unknown) => e,
      );
      return { name, stop, done };
    });

    const deadline = Date.now() + 5_000;
    while (active.size === 0 && Date.now() < deadline) await sleep(50);
    expect(active.size).toBe(1);
    await sleep(2_500);
    expect(active.size).toBe(1);
    const [leader] = [...active];
    const lease = srv.get('coordination.k8s.io/v1', 'Lease', 'rxkube-test', 'kube-system') as { spec?: { holderIdentity?: string } };
    expect(lease.spec?.holderIdentity).toBe(leader);

    const run = runs.find((r) => r.name === leader);
    const stoppedAt = Date.now();
    run?.stop.abort();
    expect(await run?.done).toBeUndefined();
    while (active.size === 0 && Date.now() < stoppedAt + 6_000) await sleep(25);
    expect(active.size).toBe(1);
    expect([...active][0]).not.toBe(leader);
    const takeover = (starts.at(-1)?.at ?? Infinity) - stoppedAt;
    if (process.env.RXKUBE_PRINT) console.log(`takeover ${takeover} ms`);
    expect(takeover).toBeLessThanOrEqual(2_000 + 2.2 * 500 + 500);
    expect(overlap).toBe(false);

    for (const r of runs) r.stop.abort();
    const results = await Promise.all(runs.map((r) => r.done));
    expect(results.every((e) => e === undefined || String(e).includes('leader election lost'))).toBe(true);
  }, 20_000);
});
