import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown, type Deltas } from './delta.js';
import { KeyError } from './errors.js';

/** A store key: `"namespace/name"` for namespaced objects, `"name"` for cluster-scoped ones. */
export type ObjectKey = string;

/** Computes the store key of an object; throws {@link KeyError} when it cannot. */
export type KeyFunction<T extends KubeObject = KubeObject> = (object: T | DeletedFinalStateUnknown<T>) => ObjectKey;

/**
 * The key of an object (ST-1): `"<namespace>/<name>"`, or `"<name>"` when the namespace is empty.
 * Throws {@link KeyError} when the object has no `metadata` or no non-empty `metadata.name`
 * (stricter than client-go, which accepts an empty name: an object without a name cannot be
 * told apart from others in a cache).
 */
export function metaNamespaceKey(object: KubeObject): ObjectKey {
  if (object === null || typeof object !== 'object') throw new KeyError(object, new Error('object is not an object'));
  const meta = object.metadata;
  if (meta === null || typeof meta !== 'object') throw new KeyError(object, new Error('object has no meta'));
  const { name, namespace } = meta;
  if (typeof name !== 'string' || name === '') throw new KeyError(object, new Error('object has no metadata.name'));
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${name}` : name;
}

/**
 * Like {@link metaNamespaceKey}, but a {@link DeletedFinalStateUnknown} tombstone yields the key
 * it carries (ST-2), so deleting a tombstone removes the right cache entry.
 */
export function deletionHandlingKey<T extends KubeObject>(object: T | DeletedFinalStateUnknown<T>): ObjectKey {
  if (object instanceof DeletedFinalStateUnknown) return object.key;
  return metaNamespaceKey(object);
}

/** Namespace and name parsed from a key; `namespace` is `""` for cluster-scoped keys. */
export interface SplitKey {
  readonly namespace: string;
  readonly name: string;
}

/**
 * Splits a key (ST-3): `"name"` → `{namespace: "", name}`, `"ns/name"` → `{namespace, name}`.
 * A key with two or more `/` throws {@link KeyError} `unexpected key format`.
 */
export function splitKey(key: ObjectKey): SplitKey {
  const first = key.indexOf('/');
  if (first < 0) return { namespace: '', name: key };
  if (key.indexOf('/', first + 1) >= 0) throw new KeyError(key, new Error(`unexpected key format: ${JSON.stringify(key)}`));
  return { namespace: key.slice(0, first), name: key.slice(first + 1) };
}

/** The inverse of {@link splitKey}: `ns/name`, or `name` when the namespace is empty. */
export function joinKey(namespace: string | undefined, name: string): ObjectKey {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * DeltaFIFO's key of a queued value (DF-1): a `Deltas` list uses its newest delta's object, a
 * tombstone its own key, anything else `keyFunction`. An empty `Deltas` throws {@link KeyError}.
 */
export function fifoKeyOf<T extends KubeObject>(
  value: T | DeletedFinalStateUnknown<T> | Deltas<T>,
  keyFunction: KeyFunction<T> = deletionHandlingKey,
): ObjectKey {
  let object: T | DeletedFinalStateUnknown<T>;
  if (Array.isArray(value)) {
    const deltas = value as Deltas<T>;
    const newest = deltas[deltas.length - 1];
    if (newest === undefined) throw new KeyError(value, new Error("0 length Deltas object; can't get key"));
    object = newest.object;
  } else {
    object = value as T | DeletedFinalStateUnknown<T>;
  }
  if (object instanceof DeletedFinalStateUnknown) return object.key;
  try {
    return keyFunction(object);
  } catch (err) {
    throw err instanceof KeyError ? err : new KeyError(object, err);
  }
}
