/**
 * Tier 3, issue 26 (fencing): a manager leads through a real kube-apiserver Lease while its
 * controller's reconcile writes a ConfigMap in a loop (ignoring its signal, as a careless
 * reconcile would). The test then takes the Lease as another identity. Once the old leader
 * observes the loss (it logs `leader election lost`), the reconcile's `ctx.signal` is aborted,
 * every write it still tries through `ctx` is refused locally (`FencedWriteError`), and no write
 * of the old leader lands after that: the ConfigMap ends at a value written by an attempt that
 * started before the loss was observed, and stays there.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { isConflict } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { FencedWriteError } from '../../src/controller/fenced-client.js';
import { formatMicroTime, type Lease } from '../../src/leader-election/lease.js';
import { LeadershipLostError } from '../../src/leader-election/leadership-lost-error.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { manager } from '../../src/manager/manager.js';
import { LeaderElectionLostError } from '../../src/manager/manager-errors.js';
import { fakeSource } from '../../src/testing/controller-harness.js';

const hasCluster = !!process.env.KUBECONFIG && !!process.env.RXKUBE_E2E_DIR;
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const CONFIG_MAPS: ResourceType<KubeObject & { data?: Record<string, string> }> = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const LEASES: ResourceType<Lease> = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Attempt {
  readonly seq: number;
  readonly startedAt: number;
  outcome?: 'ok' | 'fenced' | 'aborted' | string;
}

/** A logger that calls `onMessage` for every line and forgets it. */
function hookLogger(onMessage: (message: string, fields: LogFields | undefined) => void): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: (m, f) => onMessage(m, f),
    warn: (m, f) => onMessage(m, f),
    error: (m, f) => onMessage(m, f),
    child: () => logger,
  };
  return logger;
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe.skipIf(!hasCluster)('fencing on a real kube-apiserver', () => {
  const ns = `fence-e2e-${randomBytes(3).toString('hex')}`;
  const client = hasCluster ? KubeClient.fromDefault() : undefined;

  afterAll(async () => {
    await client?.objects(NAMESPACES).delete(ns).catch(() => undefined);
    client?.close();
  });

  it('after the Lease is taken, no write of the old leader lands once it observed the loss', async () => {
    const c = client as KubeClient;
    await c.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const target = await c.objects(CONFIG_MAPS, ns).create({ metadata: { name: 'target', namespace: ns }, data: { seq: '-1' } });

    let lostObservedAt: number | undefined;
    let abortedAt: number | undefined;
    let abortReason: unknown;
    const attempts: Attempt[] = [];
    const ctrl = controller({
      name: `fence-e2e-${ns}`,
      for: fakeSource({ resource: CONFIG_MAPS, initial: [target] }),
      reconcile: async (req, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          abortedAt = performance.now();
          abortReason = ctx.signal.reason;
        });
        // Writes every 50 ms until a write is refused, whatever its signal says.
        for (let seq = 0; seq < 10_000; seq++) {
          const attempt: Attempt = { seq, startedAt: performance.now() };
          attempts.push(attempt);
          try {
            await ctx.objects(CONFIG_MAPS, req.namespace).patch(req.name, { data: { seq: String(seq) } });
            attempt.outcome = 'ok';
          } catch (err) {
            if (err instanceof FencedWriteError) {
              attempt.outcome = 'fenced';
              return;
            }
            attempt.outcome = err instanceof LeadershipLostError ? 'aborted' : String(err);
          }
          await sleep(50);
        }
      },
    });
    const mgr = manager({
      client: c,
      processMetrics: false,
      gracefulShutdownTimeoutMs: 30_000,
      logger: hookLogger((message) => {
        if (message === 'leader election lost') lostObservedAt = performance.now();
      }),
      leaderElection: { id: 'fence-e2e', namespace: ns, identity: 'old-leader', leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 },
    });
    mgr.add(ctrl);
    let startError: unknown;
    const started = mgr.start().catch((err: unknown) => {
      startError = err;
    });

    // Mid-way: the reconcile has written a few times.
    await until(() => attempts.filter((a) => a.outcome === 'ok').length >= 5, 30_000, 'the reconcile to write');

    // Another identity takes the Lease.
    // (The old leader renews every 500 ms, so the read-modify-write may meet a conflict: retry.)
    const leases = c.objects(LEASES, ns);
    for (let tries = 1; ; tries++) {
      const lease = await leases.get('fence-e2e');
      expect(lease.spec?.holderIdentity).toBe('old-leader');
      const now = formatMicroTime(Date.now());
      try {
        await leases.replace({
          ...lease,
          spec: { ...lease.spec, holderIdentity: 'thief', acquireTime: now, renewTime: now, leaseDurationSeconds: 3600, leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1 },
        });
        break;
      } catch (err) {
        if (!isConflict(err) || tries >= 20) throw err;
      }
    }

    await until(() => startError !== undefined, 30_000, 'the old leader to observe the loss');
    await started;
    expect(startError).toBeInstanceOf(LeaderElectionLostError);
    const observed = lostObservedAt as number;
    expect(observed).toBeDefined();

    // The reconcile was aborted when the loss was observed, with the loss as its reason.
    expect(abortReason).toBeInstanceOf(LeadershipLostError);
    expect(abortedAt).toBeGreaterThanOrEqual(observed);
    await until(() => attempts.at(-1)?.outcome === 'fenced', 5_000, 'the reconcile to be refused a write');

    // Every write tried after the observation was refused locally.
    const after = attempts.filter((a) => a.startedAt >= observed);
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((a) => a.outcome)).toEqual(after.map(() => 'fenced'));

    // What the server holds was written by an attempt started before the observation, and stays.
    await sleep(1_000);
    const first = await c.objects(CONFIG_MAPS, ns).get('target');
    const before = new Set(attempts.filter((a) => a.startedAt < observed).map((a) => String(a.seq)));
    expect(before.has(first.data?.['seq'] ?? '')).toBe(true);
    await sleep(2_000);
    const second = await c.objects(CONFIG_MAPS, ns).get('target');
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect((await leases.get('fence-e2e')).spec?.holderIdentity).toBe('thief');
  }, 90_000);
});
