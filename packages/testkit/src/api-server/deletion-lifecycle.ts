import type { UnstructuredObject, ObjectMeta } from 'rxkube';
import type { ServedResource } from './resource-registry.js';
import { badRequest, failure, invalid, StatusError } from './status-error.js';

/** `DeleteOptions` fields that shape how an object is deleted. */
export interface DeletionRequest {
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
  /** Legacy form of `propagationPolicy: Orphan`. */
  readonly orphanDependents?: boolean;
}

/** What a delete does to the stored object. */
export type DeletionPlan =
  /** Removed now (one DELETED event). */
  | { readonly type: 'remove' }
  /** Kept with this new state (deletionTimestamp, finalizers, phase). */
  | { readonly type: 'mark'; readonly object: UnstructuredObject }
  /** Already being deleted; nothing changes. */
  | { readonly type: 'unchanged' };

/** The finalizer the garbage collector handles for `propagationPolicy: Foreground`. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer the garbage collector handles for `propagationPolicy: Orphan`. */
export const ORPHAN_FINALIZER = 'orphan';
/** The namespace controller's finalizer in a Namespace's `spec.finalizers`. */
export const NAMESPACE_FINALIZER = 'kubernetes';

function isoAfter(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function isCore(r: ServedResource, plural: string): boolean {
  return r.group === '' && r.plural === plural;
}

function specFinalizers(o: UnstructuredObject): readonly string[] {
  const spec = o['spec'] as { finalizers?: readonly string[] } | undefined;
  return spec?.finalizers ?? [];
}

/** The grace period of a pod deletion, as kube-apiserver's pod strategy decides it. */
function podGrace(pod: UnstructuredObject, asked: number | undefined): number {
  const spec = (pod['spec'] as { nodeName?: string; terminationGracePeriodSeconds?: number } | undefined) ?? {};
  const phase = (pod['status'] as { phase?: string } | undefined)?.phase;
  // Never scheduled, or already finished: nothing runs that a kubelet must stop.
  if (spec.nodeName === undefined || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
  const grace = asked ?? spec.terminationGracePeriodSeconds ?? 30;
  return grace < 0 ? 1 : grace;
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
 * - a pod bound to a node is deleted gracefully: `deletionTimestamp` (now + grace) and
 *   `deletionGracePeriodSeconds` are set and it stays until its kubelet deletes it again with grace
 *   0; a pod never scheduled (or finished) goes at once; a shorter grace period shortens a pending one;
 * - a namespace becomes `Terminating` and stays while `spec.finalizers` holds `kubernetes` (the
 *   namespace controller deletes its content, then finalizes it); deleting it again answers it unchanged;
 * - `propagationPolicy: Foreground` / `Orphan` add the `foregroundDeletion` / `orphan` finalizer
 *   for the garbage collector;
 * - an object with finalizers only gets `deletionTimestamp`; anything else goes at once.
 */
export function planDeletion(r: ServedResource, current: UnstructuredObject, req: DeletionRequest): DeletionPlan {
  const meta: ObjectMeta = current.metadata ?? {};
  const name = meta.name ?? '';
  const policy = checkPolicy(r, name, req);
  const finalizers = [...(meta.finalizers ?? [])];
  const deleting = meta.deletionTimestamp !== undefined;

  if (isCore(r, 'namespaces')) {
    if (deleting) {
      // kube-apiserver 1.20 answers the namespace as it is (200) while its finalizers are pending.
      if (specFinalizers(current).length === 0 && finalizers.length === 0) return { type: 'remove' };
      return { type: 'unchanged' };
    }
    if (specFinalizers(current).length === 0 && finalizers.length === 0) return { type: 'remove' };
    const status = { ...((current['status'] as object | undefined) ?? {}), phase: 'Terminating' };
    return { type: 'mark', object: { ...current, metadata: { ...meta, deletionTimestamp: isoAfter(0), deletionGracePeriodSeconds: 0 }, status } };
  }

  let grace = 0;
  if (isCore(r, 'pods')) grace = podGrace(current, req.gracePeriodSeconds);

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
 * a namespace also needs empty `spec.finalizers` (its `/finalize` write ends it).
 */
export function shouldDeleteDuringUpdate(r: ServedResource, old: UnstructuredObject, next: UnstructuredObject): boolean {
  const oldMeta = old.metadata ?? {};
  const nextMeta = next.metadata ?? {};
  if (nextMeta.deletionTimestamp === undefined || (nextMeta.finalizers ?? []).length > 0) return false;
  if ((oldMeta.deletionGracePeriodSeconds ?? 0) !== 0) return false;
  if (isCore(r, 'namespaces') && specFinalizers(next).length > 0) return false;
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
