/**
 * Tier 2: the ReplicaSet controller example runs its whole scenario against the embedded API
 * server (as `npm run example` does) and converges; plus the pieces it is built from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from 'rxkube';
import { startApiServer, type ApiServer } from 'rxkube/testing';
import { runReplicaSetExample, type ExampleResult } from '../../examples/replicaset-controller/demo.js';
import { ControllerExpectations } from '../../src/controller/expectations.js';
import { ownerKey } from '../../examples/replicaset-controller/observe-pods.js';
import { deletionOrder, podFromTemplate, slowStartBatch } from '../../examples/replicaset-controller/pod-control.js';
import { calculateStatus } from '../../examples/replicaset-controller/status.js';
import { controllerRef, isActive, type Pod, type ReplicaSet } from '../../examples/replicaset-controller/types.js';

describe('replicaset-controller example against the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  let result: ExampleResult;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    result = await runReplicaSetExample({
      client,
      scenario: true,
      simulateKubelet: true,
      burstReplicas: 3,
      color: false,
      stepTimeoutMs: 20_000,
      write: (line) => lines.push(line),
    });
  }, 120_000);
  afterAll(async () => {
    client.close();
    await server?.close();
  });

  it('converges after every step of the scenario', () => {
    expect(result.steps.map((s) => s.want)).toEqual([3, 8, 8, 8, 8, 2]);
  });

  it('leaves the ReplicaSet with 2 available pods and the status to prove it', () => {
    const rs = server.get('apps/v1', 'ReplicaSet', 'web', 'default') as ReplicaSet;
    expect(rs.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: rs.metadata?.generation });
    const pods = server.list('v1', 'Pod', 'default') as Pod[];
    const owned = pods.filter((p) => controllerRef(p)?.uid === rs.metadata?.uid && isActive(p));
    expect(owned).toHaveLength(2);
    for (const p of owned) expect(controllerRef(p)).toMatchObject({ kind: 'ReplicaSet', name: 'web', controller: true });
  });

  it('recorded Events for its creates and deletes through the manager\'s recorder', () => {
    const reasons = (server.list('events.k8s.io/v1', 'Event', 'default') as { reason?: string }[]).map((e) => e.reason); // events.k8s.io/v1 where served
    expect(reasons).toEqual(expect.arrayContaining(['SuccessfulCreate', 'SuccessfulDelete']));
  });

  it('released the relabelled pod and left it alone', () => {
    const pods = server.list('v1', 'Pod', 'default') as Pod[];
    const released = pods.filter((p) => p.metadata?.labels?.['app'] === 'debug');
    expect(released).toHaveLength(1);
    expect(controllerRef(released[0] as Pod)).toBeUndefined();
  });

  it('never created more than burstReplicas pods in one sync, and batches grew 1, 2, …', () => {
    const creates = result.syncs.flatMap((s) => (s.changes?.created.length ? [s.changes] : []));
    expect(creates.length).toBeGreaterThan(0);
    for (const c of creates) {
      expect(c.created.length).toBeLessThanOrEqual(3);
      expect(c.batches[0]).toBe(1);
    }
    const deletes = result.syncs.flatMap((s) => (s.changes?.deleted.length ? [s.changes.deleted.length] : []));
    expect(Math.max(...deletes)).toBeLessThanOrEqual(3);
  });

  it('asked to come back after minReadySeconds while pods were ready but not yet available', () => {
    expect(result.syncs.some((s) => s.requeueAfter === 1000)).toBe(true);
  });

  it('printed a readable trace: events, syncs with outcomes, adoption and release', () => {
    const text = lines.join('\n');
    expect(text).toMatch(/◂ event ADDED +pod web-\w+ +Pending +owner=web/);
    expect(text).toMatch(/⟳ sync +default\/web +[\d.]+ms created \d in batches \[1/);
    expect(text).toContain('adopted web-stray');
    expect(text).toMatch(/released web-\w+/);
    expect(text).toMatch(/want 2 have 2 ready 2 available 2 ✓/);
    expect(result.syncs.filter((s) => s.kind === 'error')).toEqual([]);
  });
});

describe('replicaset-controller example without the scenario (as with --kubeconfig)', () => {
  it('runs until its signal aborts, managing the ReplicaSets it finds', async () => {
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const stop = new AbortController();
    try {
      const labels = { app: 'api' };
      server.create({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'api', namespace: 'default' },
        spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'api', image: 'api:1' }] } } },
      });
      const run = runReplicaSetExample({ client, signal: stop.signal, controllerName: 'replicaset-no-scenario', color: false, write: () => undefined });
      let settled = false;
      void run.then(() => (settled = true));
      const deadline = Date.now() + 15_000;
      while ((server.list('v1', 'Pod', 'default') as Pod[]).filter((p) => controllerRef(p)?.name === 'api').length < 2) {
        if (Date.now() > deadline) throw new Error('no pods created');
        await new Promise((r) => setTimeout(r, 25));
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(settled).toBe(false); // still running
      stop.abort();
      const { steps, syncs } = await run;
      expect(steps).toEqual([]);
      expect(syncs.some((s) => s.key === 'default/api' && s.changes?.created.length === 2)).toBe(true);
      expect((server.list('v1', 'Pod', 'default') as Pod[]).filter((p) => controllerRef(p)?.name === 'api')).toHaveLength(2);
    } finally {
      stop.abort();
      client.close();
      await server.close();
    }
  }, 30_000);
});

describe('replicaset-controller example: pieces', () => {
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'u1', generation: 4 },
    spec: { replicas: 3, minReadySeconds: 10, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } } } },
  };
  const pod = (name: string, extra: Partial<Pod> = {}): Pod => ({
    metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u1', controller: true }] },
    ...extra,
  });

  it('expectations: creates counted, deletes tracked by key (seen twice counts once), expiry', () => {
    let now = 0;
    const e = new ControllerExpectations({ scheduler: { now: () => now }, ttlMs: 1000 });
    const observePodEvent = (x: ControllerExpectations, event: Parameters<ControllerExpectations['observeEvent']>[0]): void => x.observeEvent(event as never, ownerKey);
    expect(e.satisfied('ns/web')).toBe(true);
    e.expectCreations('ns/web', 2);
    observePodEvent(e, { type: 'add', object: pod('a'), isInInitialList: false });
    expect(e.satisfied('ns/web')).toBe(false);
    observePodEvent(e, { type: 'add', object: pod('b'), isInInitialList: false });
    expect(e.satisfied('ns/web')).toBe(true);

    e.expectDeletions('ns/web', ['ns/a', 'ns/b']);
    const terminating = pod('a', { metadata: { ...pod('a').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    observePodEvent(e, { type: 'update', old: pod('a'), object: terminating, resync: false });
    observePodEvent(e, { type: 'delete', object: pod('a') });
    expect(e.pending('ns/web')).toEqual({ creations: 0, deletions: 1 });
    observePodEvent(e, { type: 'delete', object: pod('other') }); // not expected: no effect
    expect(e.satisfied('ns/web')).toBe(false);
    now = 1001;
    expect(e.satisfied('ns/web')).toBe(true); // expired
  });

  it('slow start: batches 1, 2, 4, … and stops after the first failing batch', async () => {
    expect((await slowStartBatch(10, async () => undefined)).batches).toEqual([1, 2, 4, 3]);
    let calls = 0;
    const r = await slowStartBatch(10, async () => {
      if (++calls === 3) throw new Error('quota');
    });
    expect(r.batches).toEqual([1, 2]);
    expect(r.errors).toHaveLength(1);
    expect(calls).toBe(3);
  });

  it('deletes unscheduled, then pending, then not-ready, then newest pods first', () => {
    const ready = { phase: 'Running' as const, conditions: [{ type: 'Ready', status: 'True' as const }] };
    const pods = [
      pod('running-ready-old', { spec: { nodeName: 'n', containers: [] }, status: ready, metadata: { name: 'running-ready-old', creationTimestamp: '2026-01-01T00:00:00Z' } }),
      pod('running-ready-new', { spec: { nodeName: 'n', containers: [] }, status: ready, metadata: { name: 'running-ready-new', creationTimestamp: '2026-01-02T00:00:00Z' } }),
      pod('running', { spec: { nodeName: 'n', containers: [] }, status: { phase: 'Running' } }),
      pod('pending', { spec: { nodeName: 'n', containers: [] }, status: { phase: 'Pending' } }),
      pod('unscheduled', { status: { phase: 'Running' } }),
    ];
    expect([...pods].sort(deletionOrder).map((p) => p.metadata?.name)).toEqual([
      'unscheduled',
      'pending',
      'running',
      'running-ready-new',
      'running-ready-old',
    ]);
  });

  it('status counts ready and available (ready for minReadySeconds) pods, with the generation', () => {
    const readySince = (iso: string): Pod['status'] => ({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso }] });
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const pods = [
      pod('a', { status: readySince('2026-01-01T00:00:00Z'), metadata: { name: 'a', labels: { app: 'web' } } }),
      pod('b', { status: readySince('2026-01-01T00:00:05Z') }),
      pod('c', { status: { phase: 'Pending' } }),
    ];
    expect(calculateStatus(rs, pods, t0 + 10_000)).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 1,
      readyReplicas: 2,
      availableReplicas: 1,
      observedGeneration: 4,
    });
  });

  it('a pod from the template carries the labels and a controller reference to the ReplicaSet', () => {
    const p = podFromTemplate(rs);
    expect(p.metadata).toMatchObject({ generateName: 'web-', namespace: 'ns', labels: { app: 'web' } });
    expect(controllerRef(p)).toEqual({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u1', controller: true, blockOwnerDeletion: true });
  });
});
