import type { KubeObject } from '../api/kube-object.js';
import { isConflict, isNotFound } from '../client/api-error.js';
import type { ObjectClient } from '../client/object-client.js';
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
  /** How often a write answered with 409 Conflict is retried on a fresh copy. Default 5. */
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
 * - live object without the finalizer → add it (merge patch carrying the object's
 *   `resourceVersion`, so a concurrent write is a 409 Conflict; on conflict the object is read
 *   again and the step retried), then `apply` the updated object;
 * - live object with the finalizer → `apply`;
 * - object being deleted (`deletionTimestamp` set) with the finalizer → `cleanup`, then remove the
 *   finalizer the same way (404 = already gone, fine); `cleanup` runs once per call even when the
 *   removal is retried; if it throws, the finalizer stays and the error propagates, so the
 *   reconcile is retried (cleanup must be idempotent);
 * - object being deleted without the finalizer → nothing (`undefined`).
 *
 * @example
 * ```ts
 * reconcile: async (req, ctx) => {
 *   const obj = ctx.store.get(key); if (!obj) return;
 *   return finalizer(obj, { name: 'example.com/cleanup', client: ctx.objects(), signal: ctx.signal,
 *     apply: (o) => ensureConfigMap(o), cleanup: (o) => deleteConfigMap(o) });
 * }
 * ```
 */
export async function finalizer<T extends KubeObject, R>(object: T, options: FinalizerOptions<T, R>): Promise<R | undefined> {
  const { name, client, signal } = options;
  if (typeof name !== 'string' || name === '') throw new TypeError('finalizer needs a name');
  const retries = options.conflictRetries ?? 5;
  const call = signal === undefined ? {} : { signal };
  let current = object;
  let cleaned: { result: R } | undefined;
  for (let attempt = 0; ; attempt++) {
    const objectName = current.metadata?.name;
    if (objectName === undefined || objectName === '') throw new TypeError('finalizer: the object has no metadata.name');
    const finalizers = current.metadata?.finalizers ?? [];
    const has = finalizers.includes(name);
    const deleting = current.metadata?.deletionTimestamp !== undefined && current.metadata.deletionTimestamp !== null;
    if (!deleting && has) return options.apply(current);
    if (deleting && !has) return cleaned?.result;
    if (deleting && cleaned === undefined) cleaned = { result: await options.cleanup(current) };
    // Write the finalizer list with the resourceVersion we read: a concurrent write → 409.
    const next = deleting ? finalizers.filter((f) => f !== name) : [...finalizers, name];
    try {
      const updated = await client.patch(
        objectName,
        { metadata: { finalizers: next, resourceVersion: current.metadata?.resourceVersion } },
        'merge',
        call,
      );
      return deleting ? cleaned?.result : options.apply(updated);
    } catch (err) {
      if (deleting && isNotFound(err)) return cleaned?.result;
      if (!isConflict(err)) throw err;
      if (attempt >= retries) {
        throw new FinalizerConflictError(`finalizer ${name}: still conflicting after ${retries} retries`, { cause: err });
      }
    }
    try {
      current = await client.get(objectName, call);
    } catch (err) {
      if (isNotFound(err)) return cleaned?.result;
      throw err;
    }
  }
}
