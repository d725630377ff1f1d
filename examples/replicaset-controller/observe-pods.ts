/**
 * Which ReplicaSet a pod's events count for: rxkube's `ControllerExpectations.observe` lowers the
 * expectations of that ReplicaSet before the controller turns the event into a request, as
 * kube-controller-manager's pod event handlers do (observe first, then enqueue the owner), so
 * the reconcile an event triggers already sees the expectation lowered.
 */
import type { ControllerExpectations, ControllerSource } from 'rxkube';
import { controllerRef, REPLICA_SETS, type Pod } from './types.js';

/** The `namespace/name` of the ReplicaSet controlling `pod`, if one does. */
export function ownerKey(pod: Pod): string | undefined {
  const ref = controllerRef(pod);
  if (ref === undefined || ref.kind !== REPLICA_SETS.kind || !ref.apiVersion.startsWith('apps/')) return undefined;
  return `${pod.metadata?.namespace ?? ''}/${ref.name}`;
}

/** `source` with every registration's pod events observed by `expectations` first. */
export function observePods(source: ControllerSource<Pod>, expectations: ControllerExpectations): ControllerSource<Pod> {
  return expectations.observe(source, ownerKey);
}
