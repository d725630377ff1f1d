/**
 * Feeds pod events into the {@link Expectations} before the controller turns them into requests,
 * as kube-controller-manager's pod event handlers do (observe first, then enqueue the owner), so
 * the reconcile an event triggers already sees the expectation lowered.
 */
import { tap } from 'rxjs';
import { DeletedFinalStateUnknown, type ControllerSource, type InformerEvent } from '../../../index.js';
import type { Expectations } from './expectations.js';
import { controllerRef, keyOf, REPLICA_SETS, type Pod } from './types.js';

/** The `namespace/name` of the ReplicaSet controlling `pod`, if one does. */
export function ownerKey(pod: Pod): string | undefined {
  const ref = controllerRef(pod);
  if (ref === undefined || ref.kind !== REPLICA_SETS.kind || !ref.apiVersion.startsWith('apps/')) return undefined;
  return `${pod.metadata?.namespace ?? ''}/${ref.name}`;
}

/** Lowers expectations for one pod event. */
export function observePodEvent(expectations: Expectations, event: InformerEvent<Pod>): void {
  const pod = event.object instanceof DeletedFinalStateUnknown ? event.object.object : event.object;
  if (pod === null || pod === undefined) return;
  const owner = ownerKey(pod);
  if (owner === undefined) return;
  const terminating = pod.metadata?.deletionTimestamp !== undefined;
  if (event.type === 'delete' || terminating) expectations.deletionObserved(owner, keyOf(pod));
  else if (event.type === 'add') expectations.creationObserved(owner);
}

/** `source` with every registration's events observed by `expectations` first. */
export function observePods(source: ControllerSource<Pod>, expectations: Expectations): ControllerSource<Pod> {
  return {
    ...source,
    register: () => {
      const registration = source.register();
      return { ...registration, events$: registration.events$.pipe(tap((e) => observePodEvent(expectations, e))) };
    },
  };
}
