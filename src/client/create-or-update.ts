import { type Draft, produce } from 'immer';
import type { KubeObject } from '../api/kube-object.js';
import { isAlreadyExists, isNotFound } from './api-error.js';
import type { CallOptions, PatchType, WriteOptions } from './object-client-options.js';

/**
 * The calls a create-or-update makes (an `ObjectClient` has them): declared here so that this
 * file does not import `object-client.ts`, which delegates to it.
 */
export interface CreateOrUpdateClient<T extends KubeObject> {
  readonly namespace?: string | undefined;
  inNamespace(namespace: string | undefined): CreateOrUpdateClient<T>;
  get(name: string, options?: CallOptions): Promise<T>;
  create(object: T, options?: WriteOptions): Promise<T>;
  replace(object: T, options?: WriteOptions): Promise<T>;
  patch(name: string, patch: unknown, type?: PatchType, options?: WriteOptions): Promise<T>;
  patchStatus(name: string, patch: unknown, type?: PatchType, options?: WriteOptions): Promise<T>;
}

/** What `ObjectClient.createOrUpdate` and `ObjectClient.createOrPatch` did. */
export type OperationResult = 'created' | 'updated' | 'unchanged';

/** The outcome of a create-or-update: what happened, and the object as stored now. */
export interface CreateOrUpdateResult<T extends KubeObject> {
  readonly result: OperationResult;
  readonly object: T;
}

/**
 * Brings an object to the desired state by changing a draft: it runs on an immer draft of the
 * current object (or of the given one, when it does not exist yet) and changes what should be
 * changed. It may run more than once (once per attempt), so it decides only from the draft and
 * from values that do not change between runs. Changing the name or namespace is an error.
 */
export type MutateFn<T extends KubeObject> = (draft: Draft<T>) => void;

function identity(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/** `base` after `mutate`; `base` itself when the result is deeply equal to it (nothing to write). */
function mutated<T extends KubeObject>(base: T, mutate: MutateFn<T>): T {
  const after = produce(base, mutate);
  if (identity(after) !== identity(base)) throw new TypeError('createOrUpdate: the mutate function must not change the name or namespace');
  return after !== base && deepEqual(after, base) ? base : after;
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Runs the create path; a create that lost a race (409 AlreadyExists) is answered by `update`. */
async function createOr<T extends KubeObject>(
  client: CreateOrUpdateClient<T>,
  object: T,
  mutate: MutateFn<T>,
  options: WriteOptions,
  update: (current: T) => Promise<CreateOrUpdateResult<T>>,
): Promise<CreateOrUpdateResult<T>> {
  const name = object.metadata?.name;
  if (name === undefined || name === '') throw new TypeError('createOrUpdate needs metadata.name');
  const scoped = client.inNamespace(object.metadata?.namespace || client.namespace);
  let current: T | undefined;
  try {
    current = await scoped.get(name, options);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (current !== undefined) return update(current);
  try {
    return { result: 'created', object: await scoped.create(mutated(object, mutate), options) };
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return update(await scoped.get(name, options));
  }
}

/**
 * controller-runtime's `CreateOrUpdate`: reads the object named by `object`; when missing, runs
 * `mutate` on a draft of `object` and creates the result; otherwise runs `mutate` on a draft of
 * the current object and, when that changed anything, replaces it (guarded by the
 * resourceVersion it read: a concurrent write gives 409 Conflict; wrap the call in
 * `retryOnConflict` to decide again). Returns `'unchanged'` without writing when the draft was
 * left as it was.
 */
export function createOrUpdate<T extends KubeObject>(
  client: CreateOrUpdateClient<T>,
  object: T,
  mutate: MutateFn<T>,
  options: WriteOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  return createOr(client, object, mutate, options, async (current) => {
    const after = mutated(current, mutate);
    if (after === current) return { result: 'unchanged', object: current };
    const scoped = client.inNamespace(current.metadata?.namespace || client.namespace);
    return { result: 'updated', object: await scoped.replace(after, options) };
  });
}

/**
 * controller-runtime's `CreateOrPatch`: as {@link createOrUpdate}, but sends only what `mutate`
 * changed, as a JSON merge patch (no resourceVersion guard: last writer wins on the changed
 * fields only); changes to `status` go in a second patch to the `status` subresource.
 */
export function createOrPatch<T extends KubeObject>(
  client: CreateOrUpdateClient<T>,
  object: T,
  mutate: MutateFn<T>,
  options: WriteOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  return createOr(client, object, mutate, options, async (current) => {
    const after = mutated(current, mutate);
    if (after === current) return { result: 'unchanged', object: current };
    const scoped = client.inNamespace(current.metadata?.namespace || client.namespace);
    const name = current.metadata?.name ?? '';
    const { status: statusBefore, ...restBefore } = current as KubeObject & { readonly status?: unknown };
    const { status: statusAfter, ...restAfter } = after as KubeObject & { readonly status?: unknown };
    let stored = current;
    const main = mergePatchOf(restBefore, restAfter);
    if (main !== undefined) stored = await scoped.patch(name, main, 'merge', options);
    const status = mergePatchOf({ status: statusBefore }, { status: statusAfter });
    if (status !== undefined) stored = await scoped.patchStatus(name, status, 'merge', options);
    return { result: 'updated', object: stored };
  });
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The RFC 7386 merge patch turning `before` into `after`, or undefined when they are equal:
 * changed fields with their new values, removed ones as `null`, lists whole.
 */
export function mergePatchOf(before: unknown, after: unknown): Record<string, unknown> | undefined {
  if (!isMap(before) || !isMap(after)) throw new TypeError('mergePatchOf compares objects');
  const patch: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[key];
    const b = after[key];
    if (a === b) continue;
    if (b === undefined) patch[key] = null;
    else if (isMap(a) && isMap(b)) {
      const inner = mergePatchOf(a, b);
      if (inner !== undefined) patch[key] = inner;
    } else if (JSON.stringify(a) !== JSON.stringify(b)) patch[key] = b;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}
