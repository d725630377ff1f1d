import type { UnstructuredObject, ObjectMeta } from 'rxkube';
import type { ServedResource } from './resource-registry.js';
import type { DeletionPlan, DeletionRequest, ResourceStrategy } from './strategies/strategy.js';
import { badRequest, failure, invalid, StatusError } from './status-error.js';

export type { DeletionPlan, DeletionRequest } from './strategies/strategy.js';

/** The finalizer the garbage collector handles for `propagationPolicy: Foreground`. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer the garbage collector handles for `propagationPolicy: Orphan`. */
export const ORPHAN_FINALIZER = 'orphan';

function isoAfter(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function checkPolicy(r: ServedResource, name: string, req: DeletionRequest): string | undefined {
  const p = req.propagationPolicy;
  if (p !== undefined && p !== 'Foreground' && p !== 'Background' && p !== 'Orphan') {
    throw invalid('DeleteOptions', '', name, [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${p}": supported values: "Foreground", "Background", "Orphan", "nil"` }]);
  }
  if (p !== undefined && req.orphanDependents !== undefined) {
    throw invalid('DeleteOptions', '', name, [{ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: 'Invalid value: "' + p + '": orphanDependents and deletionPropagation cannot be both set' }]);
  }
  if (req.gracePeriodSeconds !== undefined && (!Number.isInteger(req.gracePeriodSeconds))) throw badRequest('gracePeriodSeconds must be an integer');
  void r;
  return p ?? (req.orphanDependents === true ? 'Orphan' : undefined);
}

/**
 * Decides a delete as kube-apiserver's registries do:
 * - the kind's strategy may plan it itself (a namespace becomes `Terminating` and stays while
 *   `spec.finalizers` holds `kubernetes`), and gives the grace period (a pod bound to a node is
 *   deleted gracefully: `deletionTimestamp` (now + grace) and `deletionGracePeriodSeconds` are set
 *   and it stays until its kubelet deletes it again with grace 0; a shorter grace period shortens a
 *   pending one);
 * - `propagationPolicy: Foreground` / `Orphan` add the `foregroundDeletion` / `orphan` finalizer
 *   for the garbage collector;
 * - an object with finalizers only gets `deletionTimestamp`; anything else goes at once.
 */
export function planDeletion(r: ServedResource, strategy: ResourceStrategy, current: UnstructuredObject, req: DeletionRequest): DeletionPlan {
  const meta: ObjectMeta = current.metadata ?? {};
  const name = meta.name ?? '';
  const policy = checkPolicy(r, name, req);
  const finalizers = [...(meta.finalizers ?? [])];
  const deleting = meta.deletionTimestamp !== undefined;

  const own = strategy.planDeletion(current);
  if (own !== undefined) return own;
  const grace = strategy.gracePeriodSeconds(current, req.gracePeriodSeconds);

  if (policy === 'Foreground' && !finalizers.includes(FOREGROUND_FINALIZER)) finalizers.push(FOREGROUND_FINALIZER);
  if (policy === 'Orphan' && !finalizers.includes(ORPHAN_FINALIZER)) finalizers.push(ORPHAN_FINALIZER);
  const finalizersChanged = finalizers.length !== (meta.finalizers ?? []).length;

  if (deleting) {
    const pending = meta.deletionGracePeriodSeconds ?? 0;
    // Only a shorter grace period changes a pending graceful deletion (the kubelet's grace 0 ends it).
    if (grace < pending) {
      if (grace === 0 && finalizers.length === 0) return { type: 'remove' };
      return { type: 'mark', object: { ...current, metadata: { ...meta, finalizers, deletionTimestamp: isoAfter(grace), deletionGracePeriodSeconds: grace } } };
    }
    if (finalizersChanged) return { type: 'mark', object: { ...current, metadata: { ...meta, finalizers } } };
    return { type: 'unchanged' };
  }
  if (grace === 0 && finalizers.length === 0) return { type: 'remove' };
  const nextMeta: ObjectMeta = { ...meta, deletionTimestamp: isoAfter(grace), deletionGracePeriodSeconds: grace, ...(finalizers.length > 0 ? { finalizers } : {}) };
  return { type: 'mark', object: { ...current, metadata: nextMeta } };
}

/**
 * kube-apiserver's `ShouldDeleteDuringUpdate`: an update that leaves an object being deleted with
 * no finalizers removes it, when its deletion was not graceful (`deletionGracePeriodSeconds` 0);
 * the kind's strategy may hold it longer (a namespace needs empty `spec.finalizers`: its `/finalize` write ends it).
 */
export function shouldDeleteDuringUpdate(strategy: ResourceStrategy, old: UnstructuredObject, next: UnstructuredObject): boolean {
  const oldMeta = old.metadata ?? {};
  const nextMeta = next.metadata ?? {};
  if (nextMeta.deletionTimestamp === undefined || (nextMeta.finalizers ?? []).length > 0) return false;
  if ((oldMeta.deletionGracePeriodSeconds ?? 0) !== 0) return false;
  if (strategy.holdsDeletion(next)) return false;
  return true;
}

/** 403 for a create in a namespace being deleted, as kube-apiserver's NamespaceLifecycle admission. */
export function namespaceTerminating(ns: string, r: ServedResource, name: string): StatusError {
  return new StatusError(failure(403, 'Forbidden', `${r.plural}${r.group === '' ? '' : `.${r.group}`} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`, {
    name,
    ...(r.group !== '' ? { group: r.group } : {}),
    kind: r.plural,
    causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' } as never],
  }));
}
