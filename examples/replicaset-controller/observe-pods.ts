/**
 * Which ReplicaSet a pod's events count for (its controller owner). The controller itself lowers
 * its expectations (`ctx.expectations`) from the pod events of its `owns` source this way, before
 * it turns them into requests, as kube-controller-manager's pod event handlers do.
 */
import { controllerRef, REPLICA_SETS, type Pod } from './types.js';

/** The `namespace/name` of the ReplicaSet controlling `pod`, if one does. */
export function ownerKey(pod: Pod): string | undefined {
  const ref = controllerRef(pod);
  if (ref === undefined || ref.kind !== REPLICA_SETS.kind || !ref.apiVersion.startsWith('apps/')) return undefined;
  return `${pod.metadata?.namespace ?? ''}/${ref.name}`;
}
