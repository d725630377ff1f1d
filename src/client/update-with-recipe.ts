import { asyncScheduler, timer, type SchedulerLike } from 'rxjs';
import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import type { KubeObject } from '../api/kube-object.js';
import { ApiError, isConflict } from './api-error.js';
import { draftPatch, type JsonPatchOperation, type Recipe } from './draft-patch.js';
import type { CallOptions, PatchType, WriteOptions } from './object-client-options.js';

/** Options of `ObjectClient.edit` / `editStatus` and `ctx.edit` / `ctx.editStatus`. */
export interface EditOptions<T extends KubeObject = KubeObject> extends WriteOptions {
  /**
   * How many times the recipe may run and its patch be sent: the first try plus re-runs after
   * conflicts. Default 5 (client-go's `retry.DefaultRetry` steps). 1 means no retry.
   */
  readonly attempts?: number;
  /** Wait before each re-run, in ms, plus up to 10 % jitter. Default 10 (client-go's `DefaultRetry`). */
  readonly retryDelayMs?: number;
  /** The clock of that wait. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * A cache to re-read the object from after a conflict (an informer's store, `ctx.store`): its
   * copy is used when its resourceVersion is not one already tried (the cache has caught up),
   * else the object is read from the server.
   */
  readonly store?: { get(key: string): T | undefined };
}

/** The calls an edit makes; an `ObjectClient` has them. */
export interface EditableClient<T extends KubeObject> {
  get(name: string, options?: CallOptions): Promise<T>;
  patch(name: string, patch: unknown, type?: PatchType, options?: WriteOptions): Promise<T>;
  patchStatus(name: string, patch: unknown, type?: PatchType, options?: WriteOptions): Promise<T>;
}

/** An edit still met a newer object after its last attempt. `cause` is the server's last answer. */
export class EditConflictError extends RxkubeError {
  static override readonly code: string = 'CLIENT_EDIT_CONFLICT';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'EditConflictError';

  constructor(
    /** The object's name. */
    readonly objectName: string,
    /** How many patches were sent. */
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`edit of ${objectName}: the object kept changing; gave up after ${attempts} attempts`, { cause });
  }
}

/**
 * An edit of one object with a recipe (see `ObjectClient.edit`): runs `recipe` on an immer draft of
 * `object`, sends the change as a JSON patch that first tests `metadata.resourceVersion`, and on a
 * conflict re-reads the object and runs the recipe again, at most `attempts` times. Sends nothing
 * (and resolves with the object it last read) when the recipe changes nothing.
 *
 * A conflict is a 409 Conflict, or a 422 without field causes (how kube-apiserver reports a
 * failed `test` operation) when the object read back has another resourceVersion; a 422 at an
 * unchanged resourceVersion is the patch's own failure and is thrown as is.
 */
export async function editObject<T extends KubeObject>(
  client: EditableClient<T>,
  object: T,
  recipe: Recipe<T>,
  options: EditOptions<T> = {},
  subresource?: 'status',
): Promise<T> {
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new TypeError('edit: the object has no metadata.name');
  const attempts = options.attempts ?? 5;
  if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError(`edit: attempts must be a positive integer, got ${attempts}`);
  const call: CallOptions = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  const write: WriteOptions = {
    ...call,
    ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
    ...(options.dryRun === undefined ? {} : { dryRun: options.dryRun }),
  };
  const namespace = object.metadata?.namespace;
  const key = namespace ? `${namespace}/${name}` : name;
  const tried = new Set<string>();

  let current = object;
  if (rvOf(current) === undefined) current = await client.get(name, call);
  for (let attempt = 1; ; attempt++) {
    const rv = rvOf(current);
    if (rv === undefined) throw new TypeError(`edit of ${name}: the object read has no metadata.resourceVersion`);
    const { result, operations } = draftPatch(current, recipe);
    if (rvOf(result) !== rv) throw new TypeError(`edit of ${name}: the recipe must not change metadata.resourceVersion`);
    if (operations.length === 0) return current;
    if (subresource === 'status') {
      const outside = operations.filter((op) => op.path !== '/status' && !op.path.startsWith('/status/'));
      if (outside.length > 0) {
        throw new TypeError(`editStatus of ${name}: the recipe changed ${outside.map((op) => op.path).join(', ')}; the status subresource only takes /status`);
      }
    }
    const patch: JsonPatchOperation[] = [{ op: 'test', path: '/metadata/resourceVersion', value: rv }, ...operations];
    tried.add(rv);
    try {
      return subresource === 'status' ? await client.patchStatus(name, patch, 'json', write) : await client.patch(name, patch, 'json', write);
    } catch (err) {
      if (!mayBeConflict(err)) throw err;
      const last = attempt >= attempts;
      if (last && isConflict(err)) throw new EditConflictError(name, attempt, err);
      if (!last) await delay(options.retryDelayMs ?? 10, options.scheduler ?? asyncScheduler, options.signal);
      const cached = options.store?.get(key);
      const cachedRv = cached === undefined ? undefined : rvOf(cached);
      const fresh = cached !== undefined && cachedRv !== undefined && !tried.has(cachedRv) ? cached : await client.get(name, call);
      if (!isConflict(err) && rvOf(fresh) === rv) throw err; // the patch failed on the version it was made for
      if (last) throw new EditConflictError(name, attempt, err);
      current = fresh;
    }
  }
}

function rvOf(object: KubeObject): string | undefined {
  const rv = object.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/** 409 Conflict, or 422 Invalid without field causes (a JSON patch that did not apply, e.g. a failed `test`). */
function mayBeConflict(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (isConflict(err)) return true;
  return err.statusCode === 422 && (err.status.details?.causes ?? []).length === 0;
}

/** Waits `ms` (+ up to 10 % jitter) on `scheduler`; rejects with the signal's reason on abort. */
function delay(ms: number, scheduler: SchedulerLike, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  signal?.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      subscription.unsubscribe();
      reject(signal?.reason);
    };
    const subscription = timer(ms + Math.random() * 0.1 * ms, scheduler).subscribe(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
