import type { KubeObject } from '../api/kube-object.js';
import type { ExpectedObjects } from '../api/list-watcher.js';
import { UnexpectedObjectError } from './reflector-errors.js';

/**
 * Checks `object` against what its transport promised (`ListWatcher.expectedObjects`): a wrong
 * `apiVersion`/`kind` pair (or either one alone, when the object carries only that one) or another
 * `metadata.namespace` gives an {@link UnexpectedObjectError} naming both sides; a match gives
 * `undefined`. Fields the object leaves out are not checked.
 */
export function unexpectedObject(expected: ExpectedObjects, object: KubeObject, where: string): UnexpectedObjectError | undefined {
  const kind: unknown = object.kind;
  const apiVersion: unknown = object.apiVersion;
  const types = expected.types;
  if (types !== undefined && types.length > 0 && (kind !== undefined || apiVersion !== undefined)) {
    const ok = types.some((t) => (kind === undefined || kind === t.kind) && (apiVersion === undefined || apiVersion === t.apiVersion));
    if (!ok) return new UnexpectedObjectError(where, object, expected, 'type');
  }
  const namespace: unknown = object.metadata?.namespace;
  if (expected.namespace !== undefined && expected.namespace !== '' && namespace !== undefined && namespace !== expected.namespace) {
    return new UnexpectedObjectError(where, object, expected, 'namespace');
  }
  return undefined;
}
