/**
 * leaderElection over real HTTP against the embedded API server, with the HTTP client adapter
 * (kubeClientLeaseApi) and short real-time durations: lease 2 s, renew deadline 1.5 s, retry 0.3 s.
 */
import type { Subscription } from 'rxjs';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { kubeClientLeaseApi } from '../../src/leader-election/index.js';
import { type LeaderElection, leaderElection } from '../../src/leader-election/leader-election.js';
import { LeaseLock } from '../../src/leader-election/lease-lock.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';

const L = 2_000;
const RD = 1_500;
const R = 300;
const SLACK = 500; // HTTP round trips and event-loop scheduling on a shared machine
const REF = { namespace: 'kube-system', name: 'rxkube-le-http' };

let server: ApiServer | undefined;
const clients: KubeClient[] = [];
const subscriptions: Subscription[] = [];
afterEach(async () => {
  for (const s of subscriptions.splice(0)) s.unsubscribe();
  await sleep(50);
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(predicate: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) return Number.POSITIVE_INFINITY;
    await sleep(10);
  }
  return Date.now() - start;
}

/** Candidates with one client each; records who leads and any instant with two leaders. */
function candidates(srv: ApiServer, ids: string[], releaseOnCancel = false) {
  const leading = new Set<string>();
  const overlaps: string[] = [];
  const elections = new Map<string, { election: LeaderElection; sub: Subscription }>();
  for (const id of ids) {
    const client = KubeClient.fromKubeConfig(srv.kubeConfig);
    clients.push(client);
    const election = leaderElection({
      lock: new LeaseLock(kubeClientLeaseApi(client), REF, id),
      leaseDurationMs: L,
      renewDeadlineMs: RD,
      retryPeriodMs: R,
      releaseOnCancel,
    });
    const sub = election.leading$.subscribe((isLeading) => {
      if (isLeading) {
        if (leading.size > 0) overlaps.push(`${id} leads while ${[...leading].join(',')} lead`);
        leading.add(id);
      } else leading.delete(id);
    });
    subscriptions.push(sub);
    elections.set(id, { election, sub });
  }
  const stop = (id: string) => {
    elections.get(id)?.sub.unsubscribe();
    leading.delete(id);
  };
  return { leading, overlaps, elections, stop };
}

const holder = (srv: ApiServer) =>
  (srv.get('coordination.k8s.io/v1', 'Lease', REF.name, REF.namespace) as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity;

describe('leaderElection over HTTP (embedded API server)', () => {
  it('three candidates: exactly one leads; after each kill another leads within lease + jittered retry', async () => {
    server = await startApiServer();
    const srv = server;
    const c = candidates(srv, ['a', 'b', 'c']);
    expect(await until(() => c.leading.size === 1, 5_000)).toBeLessThan(5_000);
    await sleep(3 * R + L); // several renewals; nobody else may take over meanwhile
    expect(c.leading.size).toBe(1);
    for (let kill = 0; kill < 2; kill++) {
      const [leader] = [...c.leading];
      if (leader === undefined) throw new Error('no leader');
      expect(holder(srv)).toBe(leader);
      c.stop(leader); // no release: the others must wait out the lease
      const takeover = await until(() => c.leading.size === 1, L + 2.2 * R + 3_000);
      expect(takeover).toBeLessThanOrEqual(L + 2.2 * R + SLACK);
      expect(takeover).toBeGreaterThanOrEqual(L - R - SLACK); // measured from the kill, the last renew was ≤ R earlier
      expect([...c.leading][0]).not.toBe(leader);
    }
    expect(c.overlaps).toEqual([]);
  }, 30_000);

  it('releaseOnCancel hands over within one jittered retry', async () => {
    server = await startApiServer();
    const srv = server;
    const c = candidates(srv, ['a', 'b'], true);
    expect(await until(() => c.leading.size === 1, 5_000)).toBeLessThan(5_000);
    const [leader] = [...c.leading];
    c.stop(leader ?? '');
    const takeover = await until(() => c.leading.size === 1, 5_000);
    expect(takeover).toBeLessThanOrEqual(2.2 * R + SLACK);
    expect(c.overlaps).toEqual([]);
  }, 20_000);

  it('a concurrent writer (409 on the next renewal) makes the leader step down at once; the lease is taken only after it expires', async () => {
    server = await startApiServer();
    const srv = server;
    const c = candidates(srv, ['a', 'b']);
    expect(await until(() => c.leading.size === 1, 5_000)).toBeLessThan(5_000);
    const current = srv.get('coordination.k8s.io/v1', 'Lease', REF.name, REF.namespace) as UnstructuredObject & { spec: object };
    srv.update({ ...current, spec: { ...current.spec, holderIdentity: 'intruder', leaseDurationSeconds: 2 } });
    const stepDown = await until(() => c.leading.size === 0, 3_000);
    expect(stepDown).toBeLessThanOrEqual(R + SLACK);
    const retake = await until(() => c.leading.size === 1, 6_000);
    expect(retake).toBeGreaterThanOrEqual(L - R - SLACK);
    expect(retake).toBeLessThanOrEqual(L + 2.2 * R + SLACK);
    expect(c.overlaps).toEqual([]);
  }, 20_000);

  it('when every write fails (503) the leader stops leading within the renew deadline, before the lease expires', async () => {
    server = await startApiServer();
    const srv = server;
    const c = candidates(srv, ['a', 'b']);
    expect(await until(() => c.leading.size === 1, 5_000)).toBeLessThan(5_000);
    const [leader] = [...c.leading];
    srv.faults.failNext({ method: 'PUT', path: /\/leases\//, code: 503, count: 1_000 });
    const stepDown = await until(() => c.leading.size === 0, 5_000);
    expect(stepDown).toBeLessThanOrEqual(RD + SLACK);
    await sleep(L); // nobody can renew or take over while writes fail
    expect(c.leading.size).toBe(0);
    srv.faults.clear();
    expect(await until(() => c.leading.size === 1, 5_000)).toBeLessThan(5_000);
    expect(c.overlaps).toEqual([]);
    expect(leader).toBeDefined();
  }, 20_000);
});
