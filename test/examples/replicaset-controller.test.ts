/**
 * Tier 2: the ReplicaSet controller example runs its whole scenario against the embedded API
 * server (as `npm run example` does) and converges. The controller's own pieces are tested in
 * test/controller-manager/replicaset-controller.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { runReplicaSetExample, type ExampleResult } from '../../examples/replicaset-controller/demo.js';
import { controllerRef, isActive, type Pod, type ReplicaSet } from '../../packages/controller-manager/src/replicaset/types.js';

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
