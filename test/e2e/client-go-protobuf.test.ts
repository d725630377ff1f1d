/**
 * Tier 3, differential: a protobuf-configured client-go against the embedded API server and
 * against a real kube-apiserver 1.20.
 *
 * `test/e2e/client-go/main.go` (built here by bench/support/client-go.ts from the client-go
 * vendored in Debian's Kubernetes 1.20.2 source package, cached by the hash of main.go) sets
 * `ContentType: application/vnd.kubernetes.protobuf` and Accept protobuf then JSON. It lists,
 * watches, creates, updates (and a stale update), gets, patches, deletes (a failed precondition,
 * then for real) ConfigMaps, lists a batch two at a time and deletes it as a collection, with a
 * ConfigMap informer running (one list, then its watch, bookmarks included, must last), then
 * holds a Lease with client-go's leaderelection (resourcelock.LeaseLock with an event recorder):
 * acquire, at least two renewals, release on cancel, with a watch of the Lease. It prints one JSON
 * line: the verbs that worked, the events seen, the Lease's story, and the media types of every
 * request body and response (a transport wrapper counts them).
 *
 * The same program runs against `startApiServer({ strict, tls, token })` (the kubeconfig it writes)
 * and against KUBECONFIG; the two lines must be equal but for the one documented difference
 * (docs/embedded-api-server.md): a MicroTime written in protobuf reads back to the microsecond
 * from the embedded server, to the nanosecond from kube-apiserver. The embedded server's request
 * log also shows the request bodies it decoded were protobuf.
 *
 * Without Go or the Kubernetes source the test is skipped with the reason printed; a failed build
 * fails it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientGoProgram, type ClientGoBinary } from '../../bench/support/client-go.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { hasCluster } from './helpers/cluster.js';

const run = promisify(execFile);
const PB = 'application/vnd.kubernetes.protobuf';
const MAIN_GO = fileURLToPath(new URL('./client-go/main.go', import.meta.url));
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };

interface Summary {
  verbs: string[];
  events: string[];
  pagedList: number[];
  leaseEvents: string[];
  leaderEvents: string[];
  informer: { synced: boolean; seen: string[]; lists: number };
  configMapData: Record<string, string> | null;
  patchedData: Record<string, string> | null;
  lease: { acquired: boolean; holder: string; renewedAtLeastTwice: boolean; renewals: number; renewTimeReadBack: string; released: boolean; holderAfterRelease: string; leaseDurationSecondsAfterRelease: number } & Record<string, unknown>;
  requestBodies: Record<string, string[]>;
  responses: Record<string, string[]>;
  errors: string[];
  elapsedMs: number;
  allProtobufSent: boolean;
  allProtobufReceived: boolean;
}

/** The summary without what varies from run to run (timing, renewal count) or is a documented difference. */
function comparable(s: Summary): unknown {
  const { elapsedMs: _e, lease, ...rest } = s;
  const { renewals: _r, renewTimeReadBack: _t, ...leaseRest } = lease;
  return { ...rest, lease: leaseRest };
}

async function runProgram(binary: string, kubeconfig: string, namespace: string, name: string): Promise<Summary> {
  const { stdout, stderr } = await run(binary, ['-kubeconfig', kubeconfig, '-namespace', namespace, '-name', name], { timeout: 120_000, maxBuffer: 16 * 2 ** 20 }).catch((err: unknown) => {
    const e = err as { stdout?: string; stderr?: string; message?: string };
    throw new Error(`client-go program failed: ${e.message ?? String(err)}\n${e.stderr ?? ''}\n${e.stdout ?? ''}`);
  });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Summary;
  } catch {
    throw new Error(`no JSON summary from the client-go program: ${stdout}\n${stderr}`);
  }
}

/** What a successful run shows on either server. */
function expectHealthy(s: Summary, name: string): void {
  expect(s.errors).toEqual([]);
  expect(s.verbs).toEqual(['list', 'watch', 'create', 'update', 'update-conflict', 'get', 'patch', 'delete-conflict', 'delete', 'get-notfound', 'deletecollection', 'lease-create']);
  expect(s.events).toEqual(['ADDED created', 'MODIFIED updated', 'MODIFIED updated+patched', 'DELETED updated+patched']);
  expect(s.pagedList).toEqual([2, 1]);
  expect(s.informer).toEqual({ synced: true, lists: 1, seen: ['add created', 'update updated', 'update updated+patched', 'delete updated+patched'] });
  expect(s.patchedData).toEqual({ step: 'updated', extra: 'x', patched: 'yes' });
  const holder = `${name}-holder`;
  expect(s.lease).toMatchObject({ acquired: true, holder, renewedAtLeastTwice: true, released: true, holderAfterRelease: '', leaseDurationSecondsAfterRelease: 1 });
  expect(s.lease.renewals).toBeGreaterThanOrEqual(2);
  expect(s.leaseEvents).toEqual([`ADDED ${holder}`, `MODIFIED ${holder}`, 'MODIFIED ', 'DELETED ']);
  expect(s.leaderEvents).toEqual([`Normal LeaderElection rxkube-e2e: ${holder} became leader`]);
  expect(s.allProtobufSent).toBe(true);
  expect(s.allProtobufReceived).toBe(true);
  expect(s.responses['WATCH configmaps']).toEqual([`${PB};stream=watch`]);
  expect(s.responses['WATCH leases']).toEqual([`${PB};stream=watch`]);
  expect(s.requestBodies['PUT leases']).toEqual([PB]);
}

describe.skipIf(!hasCluster)('a protobuf client-go (leaderelection on a Lease) on the embedded server and on kube-apiserver', () => {
  let built: ClientGoBinary = { skip: 'not built yet' };
  const name = `pb-${randomBytes(3).toString('hex')}`;
  const namespace = `client-go-pb-${randomBytes(3).toString('hex')}`;
  const summaries: { embedded?: Summary; real?: Summary } = {};
  const client = hasCluster ? KubeClient.fromDefault() : undefined;

  beforeAll(async () => {
    built = await buildClientGoProgram({ mainGo: MAIN_GO, name: 'rxkube-e2e-protobuf-client', binDir: 'client-go-e2e', label: 'e2e protobuf client-go' }, (line) => console.log(line));
    if ('skip' in built) {
      if (built.buildFailed === true) throw new Error(built.skip);
      console.log(`client-go protobuf e2e skipped: ${built.skip}`);
    }
  }, 1_800_000);

  afterAll(async () => {
    await client?.objects(NAMESPACES).delete(namespace).catch(() => undefined);
    client?.close();
  });

  it('embedded server (strict, TLS, token): every verb works, every body it decoded was protobuf', async (ctx) => {
    if (!('path' in built)) return ctx.skip();
    const dir = await mkdtemp(join(os.tmpdir(), 'rxkube-client-go-'));
    let server: ApiServer | undefined;
    try {
      // Bookmarks every 200 ms: the informer's watch (allowWatchBookmarks) gets some, as protobuf frames.
      server = await startApiServer({ strict: true, tls: true, token: true, bookmarkIntervalMs: 200, kubernetesVersion: '1.20' });
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const kubeconfig = join(dir, 'kubeconfig');
      await server.writeKubeconfig(kubeconfig);
      const s = await runProgram(built.path, kubeconfig, namespace, name);
      summaries.embedded = s;
      expectHealthy(s, name);
      expect(s.lease.renewTimeReadBack).toBe('microseconds');
      // The server's side: what it decoded and whom it answered in protobuf.
      const resources = ['/configmaps', 'coordination.k8s.io/leases', '/events'];
      const records = server.requests.all().filter((r) => r.resourceId !== undefined && resources.includes(r.resourceId));
      const withBody = records.filter((r) => r.contentType !== '');
      expect(withBody.filter((r) => r.method !== 'PATCH').every((r) => r.contentType === PB)).toBe(true);
      expect(withBody.filter((r) => r.method === 'PATCH').map((r) => r.contentType)).toEqual(['application/strategic-merge-patch+json']);
      expect(server.requests.count({ method: 'PUT', resourceId: 'coordination.k8s.io/leases', contentType: PB })).toBeGreaterThanOrEqual(3);
      expect(server.requests.count({ method: 'POST', resourceId: '/events', contentType: PB })).toBe(1);
      expect(records.every((r) => r.accept === `${PB},application/json`)).toBe(true);
    } finally {
      await server?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('kube-apiserver 1.20 (KUBECONFIG): the same program, the same summary', async (ctx) => {
    if (!('path' in built) || client === undefined) return ctx.skip();
    await client.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const s = await runProgram(built.path, process.env.KUBECONFIG ?? '', namespace, name);
    summaries.real = s;
    expectHealthy(s, name);
    expect(s.lease.renewTimeReadBack).toBe('exact');
    expect(summaries.embedded).toBeDefined();
    expect(comparable(summaries.embedded as Summary)).toEqual(comparable(s));
  });
});
