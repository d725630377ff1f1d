import type { KubeObject } from '../api/kube-object.js';
import { isNotFound } from '../client/api-error.js';
import type { Recipe } from '../client/draft-patch.js';
import type { ObjectClient } from '../client/object-client.js';
import { EditConflictError, editObject } from '../client/update-with-recipe.js';
import { ControllerError } from './controller-errors.js';

/** Options of {@link finalizer}. */
export interface FinalizerOptions<T extends KubeObject, R> {
  /** The finalizer name, e.g. `example.com/cleanup` (should be domain-qualified). */
  readonly name: string;
  /** A client for the object's type in the object's namespace (e.g. `ctx.objects()`). */
  readonly client: ObjectClient<T>;
  /** Brings the world in line for a live object; runs after the finalizer is in place. */
  apply(object: T): R | PromiseLike<R>;
  /** Releases what `apply` created; runs once the object is being deleted and still carries the finalizer. */
  cleanup(object: T): R | PromiseLike<R>;
  readonly signal?: AbortSignal;
  /** How often a conflicting write (409 Conflict, or a failed resourceVersion test) is re-run on a fresh copy. Default 5. */
  readonly conflictRetries?: number;
}

/** Thrown when the finalizer could not be written after every conflict retry. */
export class FinalizerConflictError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_FINALIZER_CONFLICT';
  override name = 'FinalizerConflictError';
}

/**
 * Runs a reconcile guarded by a finalizer (kube-rs's `finalizer`, controller-runtime's finalizer
 * helpers):
 * - live object without the finalizer → add it (a draft edit, `ObjectClient.edit`: a JSON patch
 *   appending to `metadata.finalizers` after a `test` of the object's `resourceVersion`; on a
 *   conflict the object is read again and the edit re-run on it), then `apply` the updated object;
 * - live object with the finalizer → `apply`;
 * - object being deleted (`deletionTimestamp` set) with the finalizer → `cleanup`, then remove the
 *   finalizer the same way (a `remove` of its index; 404 = already gone, fine); `cleanup` runs once per call even when the
 *   removal is retried; if it throws, the finalizer stays and the error propagates, so the
 *   reconcile is retried (cleanup must be idempotent);
 * - object being deleted without the finalizer → nothing (`undefined`).
 *
 * A finalizer narrows, but does not close, the window in which an object goes without `cleanup`:
 * a DELETE that read the object just before the finalizer was added deletes it at once on
 * kube-apiserver 1.20 (it checks the finalizers of the object it read), so what `apply` created
 * in that moment outlives it. Give what `apply` creates an owner reference (the garbage collector
 * removes it), or clean up also when the object is gone (`ctx.object === undefined`).
 *
 * @example
 * ```ts
 * reconcile: async (req, ctx) => {
 *   const obj = ctx.object; if (!obj) return;
 *   return finalizer(obj, { name: 'example.com/cleanup', client: ctx.objects(), signal: ctx.signal,
 *     apply: (o) => ensureConfigMap(o), cleanup: (o) => deleteConfigMap(o) });
 * }
 * ```
 */
export async function finalizer<T extends KubeObject, R>(object: T, options: FinalizerOptions<T, R>): Promise<R | undefined> {
  const { name, client, signal } = options;
  if (typeof name !== 'string' || name === '') throw new TypeError('finalizer needs a name');
  const edit = { attempts: (options.conflictRetries ?? 5) + 1, ...(signal === undefined ? {} : { signal }) };
  let current = object;
  let cleaned: { result: R } | undefined;
  for (;;) {
    const objectName = current.metadata?.name;
    if (objectName === undefined || objectName === '') throw new TypeError('finalizer: the object has no metadata.name');
    const has = (current.metadata?.finalizers ?? []).includes(name);
    const deleting = isDeleting(current);
    if (!deleting && has) return options.apply(current);
    if (deleting && !has) return cleaned?.result;
    if (deleting && cleaned === undefined) cleaned = { result: await options.cleanup(current) };
    // Each edit re-runs on a fresh copy after a conflict; its result is examined again above.
    try {
      current = await editObject(client, current, deleting ? removeFinalizer<T>(name) : addFinalizer<T>(name), edit);
    } catch (err) {
      if (deleting && isNotFound(err)) return cleaned?.result;
      if (err instanceof EditConflictError) {
        throw new FinalizerConflictError(`finalizer ${name}: still conflicting after ${edit.attempts - 1} retries`, { cause: err });
      }
      throw err;
    }
  }
}

function isDeleting(object: KubeObject): boolean {
  const ts = object.metadata?.deletionTimestamp;
  return ts !== undefined && ts !== null;
}

/** Appends the finalizer unless it is there or the object is being deleted (the API server refuses new finalizers then). */
function addFinalizer<T extends KubeObject>(name: string): Recipe<T> {
  return (draft) => {
    if (isDeleting(draft as KubeObject)) return;
    const metadata = (draft.metadata ??= {});
    const finalizers = (metadata.finalizers ??= []);
    if (!finalizers.includes(name)) finalizers.push(name);
  };
}

/** Removes every occurrence of the finalizer. */
function removeFinalizer<T extends KubeObject>(name: string): Recipe<T> {
  return (draft) => {
    const finalizers = draft.metadata?.finalizers;
    if (finalizers === undefined) return;
    for (let i = finalizers.length - 1; i >= 0; i--) if (finalizers[i] === name) finalizers.splice(i, 1);
  };
}
