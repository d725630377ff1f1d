/**
 * The ReplicaSet controller's pieces (packages/controller-manager/src/replicaset/): expectations
 * lowered by pod events, slow-start batches, deletion order, status, pods from the template. The
 * whole controller runs in test/examples/replicaset-controller.test.ts (the example's scenario),
 * replicaset-expectations.test.ts and cluster-scenario.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ControllerExpectations } from '../../../src/controller/expectations.js';
import { deletionOrder, podFromTemplate, slowStartBatch } from '../src/replicaset/pod-control.js';
import { calculateStatus } from '../src/replicaset/status.js';
import { controllerRef, REPLICA_SETS, type Pod, type ReplicaSet } from '../src/replicaset/types.js';

/** The ReplicaSet a pod's events count for (its controller owner), as the controller's `owns` source keys them. */
function ownerKey(pod: Pod): string | undefined {
  const ref = controllerRef(pod);
  if (ref === undefined || ref.kind !== REPLICA_SETS.kind || !ref.apiVersion.startsWith('apps/')) return undefined;
  return `${pod.metadata?.namespace ?? ''}/${ref.name}`;
}

describe('replicaset controller: pieces', () => {
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
