/**
 * Creating and deleting a ReplicaSet's pods (kube-controller-manager's `RealPodControl` and the
 * create/delete half of `manageReplicas`): creates go out in slow-start batches of 1, 2, 4, …
 * so a failing create (quota, admission) costs one call rather than hundreds; deletes pick the
 * pods least far along first and go out in parallel.
 */
import { isNotFound, type ControllerExpectations, type EventRecorder, type ObjectClient } from 'rxkube';
import { isReady, keyOf, REPLICA_SETS, type Pod, type ReplicaSet } from './types.js';

/** What one create or delete round did, for the trace. */
export interface PodChanges {
  readonly created: string[];
  readonly batches: number[];
  readonly deleted: string[];
  readonly errors: unknown[];
}

/** The pod a ReplicaSet's template describes, controlled by the ReplicaSet. */
export function podFromTemplate(rs: ReplicaSet): Pod {
  const meta = rs.spec?.template?.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata?.name ?? 'rs'}-`,
      namespace: rs.metadata?.namespace,
      labels: { ...meta?.labels },
      ...(meta?.annotations === undefined ? {} : { annotations: { ...meta.annotations } }),
      ownerReferences: [
        {
          apiVersion: REPLICA_SETS.apiVersion,
          kind: REPLICA_SETS.kind,
          name: rs.metadata?.name ?? '',
          uid: rs.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { containers: [], ...rs.spec?.template?.spec },
  };
}

/**
 * Calls `fn` `count` times in batches of 1, 2, 4, … (each batch in parallel), stopping after the
 * first batch with a failure. Returns the batch sizes tried and the errors of the failed calls.
 */
export async function slowStartBatch(count: number, fn: () => Promise<void>): Promise<{ batches: number[]; errors: unknown[] }> {
  const batches: number[] = [];
  let remaining = count;
  for (let size = Math.min(remaining, 1); size > 0; size = Math.min(2 * size, remaining)) {
    batches.push(size);
    const settled = await Promise.allSettled(Array.from({ length: size }, fn));
    const errors = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason as unknown);
    if (errors.length > 0) return { batches, errors };
    remaining -= size;
  }
  return { batches, errors: [] };
}

/** Creates `count` pods for `rs`; creations that fail or are never tried lower the expectations. */
export async function createPods(
  rs: ReplicaSet,
  count: number,
  pods: ObjectClient<Pod>,
  expectations: ControllerExpectations,
  recorder: EventRecorder,
  signal?: AbortSignal,
): Promise<PodChanges> {
  const owner = keyOf(rs);
  expectations.expectCreations(owner, count);
  const created: string[] = [];
  const { batches, errors } = await slowStartBatch(count, async () => {
    const pod = await pods.create(podFromTemplate(rs), signal === undefined ? {} : { signal });
    const name = pod.metadata?.name ?? '?';
    created.push(name);
    recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`);
  });
  for (let skipped = count - created.length; skipped > 0; skipped--) expectations.creationObserved(owner);
  return { created, batches, deleted: [], errors };
}

/**
 * Orders pods so the ones to delete first come first (a subset of `controller.ActivePods`):
 * not yet on a node, then Pending before Unknown before Running, then not ready before ready,
 * then the newest first.
 */
export function deletionOrder(a: Pod, b: Pod): number {
  const assigned = (p: Pod): number => (p.spec?.nodeName ? 1 : 0);
  const phase = (p: Pod): number => ({ Pending: 0, Unknown: 1, Running: 2 })[p.status?.phase as string] ?? 0;
  const ready = (p: Pod): number => (isReady(p) ? 1 : 0);
  const created = (p: Pod): number => Date.parse(p.metadata?.creationTimestamp ?? '') || 0;
  return assigned(a) - assigned(b) || phase(a) - phase(b) || ready(a) - ready(b) || created(b) - created(a);
}

/** Deletes the first `count` of `active` in {@link deletionOrder}, in parallel. */
export async function deletePods(
  rs: ReplicaSet,
  active: readonly Pod[],
  count: number,
  pods: ObjectClient<Pod>,
  expectations: ControllerExpectations,
  recorder: EventRecorder,
  signal?: AbortSignal,
): Promise<PodChanges> {
  const owner = keyOf(rs);
  const victims = [...active].sort(deletionOrder).slice(0, count);
  expectations.expectDeletions(owner, victims.map(keyOf));
  const deleted: string[] = [];
  const errors: unknown[] = [];
  await Promise.all(
    victims.map(async (pod) => {
      const name = pod.metadata?.name ?? '';
      try {
        await pods.delete(name, signal === undefined ? {} : { signal });
        deleted.push(name);
        recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      } catch (err) {
        // The cache will never see this delete happen: stop waiting for it.
        expectations.deletionObserved(owner, keyOf(pod));
        if (!isNotFound(err)) errors.push(err);
      }
    }),
  );
  return { created: [], batches: [], deleted, errors };
}
