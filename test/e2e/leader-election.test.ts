/**
 * Tier 3: leader election between three manager processes on a real kube-apiserver's Lease.
 * Exactly one leads; after the leader is SIGKILLed (no release) another takes over within
 * leaseDuration + a jittered retry period (client-go's jitter makes a retry wait up to 2.2 × retry)
 * plus HTTP slack; and at no instant do two processes report leading at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';

const hasCluster = !!process.env.KUBECONFIG && !!process.env.RXKUBE_E2E_DIR;
const FIXTURE = fileURLToPath(new URL('./fixtures/lease-candidate.ts', import.meta.url));
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const LEASES: ResourceType = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true };
const EVENTS: ResourceType = { apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true };
interface CoreEventView {
  readonly reason?: string;
  readonly type?: string;
  readonly message?: string;
  readonly involvedObject?: { readonly kind?: string; readonly name?: string; readonly uid?: string };
}
const LEASE = 4_000;
const RENEW = 3_000;
const RETRY = 1_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Interval {
  identity: string;
  from: number;
  to: number;
}

describe.skipIf(!hasCluster)('leader election between manager processes on a real kube-apiserver', () => {
  const ns = `le-e2e-${randomBytes(3).toString('hex')}`;
  const children: ChildProcess[] = [];
  const client = hasCluster ? KubeClient.fromDefault() : undefined;

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await client?.objects(NAMESPACES).delete(ns).catch(() => undefined);
    client?.close();
  });

  it('one of three leads, a killed leader is replaced in time, never two at once', async () => {
    await client?.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const leading = new Map<string, number>(); // identity → since
    const intervals: Interval[] = [];
    const errors: string[] = [];
    for (const identity of ['a', 'b', 'c']) {
      const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', FIXTURE, identity, String(LEASE), String(RENEW), String(RETRY), ns], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: process.env,
      });
      children.push(child);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const [what, who = '', at = '0'] = line.split(' ');
        if (what === 'LEADING') leading.set(who, Number(at));
        else if (what === 'STOPPED') {
          intervals.push({ identity: who, from: leading.get(who) ?? 0, to: Number(at) });
          leading.delete(who);
        } else if (what === 'ERROR') errors.push(line);
      });
    }
    const until = async (cond: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!cond() && Date.now() < end) await sleep(25);
    };
    await until(() => leading.size > 0, 30_000);
    expect(leading.size).toBe(1);
    await sleep(LEASE + RETRY); // steady state: still exactly one
    expect(leading.size).toBe(1);

    const [leader] = [...leading.keys()];
    const victim = children[['a', 'b', 'c'].indexOf(leader ?? '')];
    const killedAt = Date.now();
    victim?.kill('SIGKILL');
    intervals.push({ identity: leader ?? '', from: leading.get(leader ?? '') ?? 0, to: killedAt });
    leading.delete(leader ?? '');
    await until(() => leading.size > 0, LEASE + 3 * RETRY + 5_000);
    expect(leading.size).toBe(1);
    const [next] = [...leading.entries()];
    expect(next?.[0]).not.toBe(leader);
    const failover = (next?.[1] ?? Infinity) - killedAt;
    console.log(`leader-election e2e: ${leader} killed, ${next?.[0]} leading after ${failover} ms (lease ${LEASE}, retry ${RETRY})`);
    expect(failover).toBeLessThanOrEqual(LEASE + 2.2 * RETRY + 1_000);

    // no two leaders at any observed instant
    const all = [...intervals, ...[...leading].map(([identity, from]) => ({ identity, from, to: Date.now() }))].sort((x, y) => x.from - y.from);
    for (let i = 1; i < all.length; i++) expect(all[i]!.from, `${all[i - 1]!.identity} and ${all[i]!.identity} overlap`).toBeGreaterThanOrEqual(all[i - 1]!.to);
    expect(errors).toEqual([]);

    // LE-9: the Lease carries the configured label, and each new leader recorded a LeaderElection Event on it.
    const lease = await client!.objects(LEASES, ns).get('rxkube-e2e-election');
    expect(lease.metadata?.labels?.['app.kubernetes.io/name']).toBe('rxkube-e2e');
    const wanted = [`${leader} became leader`, `${next?.[0]} became leader`];
    let messages: string[] = [];
    for (let i = 0; i < 40 && !wanted.every((m) => messages.includes(m)); i++) {
      const events = (await client!.objects<CoreEventView & KubeObject>(EVENTS, ns).list()).items;
      const onLease = events.filter((e) => e.reason === 'LeaderElection' && e.involvedObject?.kind === 'Lease' && e.involvedObject.name === 'rxkube-e2e-election');
      for (const e of onLease) expect(e.type).toBe('Normal');
      expect(onLease.every((e) => e.involvedObject?.uid === lease.metadata?.uid)).toBe(true);
      messages = onLease.map((e) => e.message ?? '');
      if (!wanted.every((m) => messages.includes(m))) await sleep(250);
    }
    expect(messages).toEqual(expect.arrayContaining(wanted));
  }, 90_000);
});
