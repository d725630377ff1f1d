/**
 * Tier 3: warm standbys (docs/leader-election.md, "Warm standbys") between two manager processes
 * on a real kube-apiserver. Each runs a ConfigMap controller built with `warmup: true` that writes
 * its identity into an annotation. The leader is SIGKILLed; the standby, which had registered on
 * its source and held one request per ConfigMap, takes over and reconciles every ConfigMap from
 * what it held: it sends no list after gaining leadership, and wrote nothing before it.
 * Behaviour only, no timing (bench/warm-failover.ts measures the failover).
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
const FIXTURE = fileURLToPath(new URL('./fixtures/warm-candidate.ts', import.meta.url));
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const CONFIG_MAPS: ResourceType = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const ANNOTATION = 'e2e.rxkube.io/reconciled-by';
const OBJECTS = 60;
const LEASE = 4_000;
const RENEW = 3_000;
const RETRY = 1_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What one candidate printed. */
interface Candidate {
  readonly identity: string;
  readonly child: ChildProcess;
  standby?: number;
  leading?: number;
  all?: number;
  warmStart?: { held: number; unsynced: number };
  readonly requests: { at: number; method: string; path: string }[];
  readonly errors: string[];
}

describe.skipIf(!hasCluster)('warm standby on a real kube-apiserver', () => {
  const ns = `warm-e2e-${randomBytes(3).toString('hex')}`;
  const candidates: Candidate[] = [];
  const client = hasCluster ? KubeClient.fromDefault() : undefined;

  afterAll(async () => {
    for (const c of candidates) c.child.kill('SIGKILL');
    await client?.objects(NAMESPACES).delete(ns).catch(() => undefined);
    client?.close();
  });

  it('the standby takes over with the requests it held: no list after gaining leadership, no write before', async () => {
    await client!.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const cms = client!.objects(CONFIG_MAPS, ns);
    for (let i = 0; i < OBJECTS; i++) await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } } as KubeObject);

    for (const identity of ['a', 'b']) {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--conditions=source', FIXTURE, identity, '1', ns, String(OBJECTS), '1', String(LEASE), String(RENEW), String(RETRY)],
        { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
      );
      const c: Candidate = { identity, child, requests: [], errors: [] };
      candidates.push(c);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const [what, , a = '', b = '', d = ''] = line.split(' ');
        if (what === 'STANDBY') c.standby = Number(a);
        else if (what === 'LEADING') c.leading = Number(a);
        else if (what === 'ALL') c.all = Number(a);
        else if (what === 'WARMSTART') c.warmStart = { held: Number(a), unsynced: Number(b) };
        else if (what === 'REQ') c.requests.push({ at: Number(a), method: b, path: d });
        else if (what === 'ERROR') c.errors.push(line);
      });
    }
    const until = async (cond: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!cond() && Date.now() < end) await sleep(25);
    };
    await until(() => candidates.some((c) => c.all !== undefined) && candidates.every((c) => c.standby !== undefined), 30_000);
    const leader = candidates.find((c) => c.leading !== undefined);
    const standby = candidates.find((c) => c.leading === undefined);
    expect(leader?.all).toBeDefined();
    expect(standby?.standby).toBeDefined();
    // The leader's writes reached the standby's cache and were held as requests (one per object).
    await sleep(1_000);

    leader!.child.kill('SIGKILL');
    await until(() => standby!.all !== undefined, LEASE + 3 * RETRY + 20_000);
    const s = standby!;
    expect(s.leading).toBeDefined();
    expect(s.all).toBeDefined();
    expect(s.warmStart).toEqual({ held: OBJECTS, unsynced: 0 });
    const leadingAt = s.leading!;
    // Its only list was the informer's, before it led; the takeover reconciled from what it held.
    const lists = s.requests.filter((r) => r.method === 'LIST');
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.filter((r) => r.at >= leadingAt)).toEqual([]);
    // Nothing written before leading; every object written (annotated) after.
    const writes = s.requests.filter((r) => !['GET', 'LIST', 'WATCH'].includes(r.method));
    expect(writes.filter((r) => r.at < leadingAt)).toEqual([]);
    expect(writes.length).toBe(OBJECTS);
    let annotatedBy: string[] = [];
    for (let i = 0; i < 40; i++) {
      annotatedBy = (await cms.list()).items.map((o) => o.metadata?.annotations?.[ANNOTATION] ?? '');
      if (annotatedBy.every((a) => a === s.identity)) break;
      await sleep(250);
    }
    expect(annotatedBy).toEqual(Array.from({ length: OBJECTS }, () => s.identity));
    expect(candidates.flatMap((c) => c.errors)).toEqual([]);
  }, 120_000);
});
