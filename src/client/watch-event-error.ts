import type { KubeObject } from '../api/kube-object.js';
import type { WatchEvent } from '../api/list-watcher.js';
import { ApiError } from './api-error.js';
import { wellTypedStatus } from './api-error-from-response.js';

/**
 * The {@link ApiError} an `ERROR` watch event stands for (its object is a Status: 410 Gone for a
 * compacted resourceVersion, 500 for an internal error, …), or undefined for any other event.
 * Credentials in use are masked in it (by `ApiError`).
 */
export function watchEventError(event: WatchEvent<KubeObject>): ApiError | undefined {
  if (event.type !== 'ERROR') return undefined;
  const status = wellTypedStatus(event.object);
  return new ApiError({ kind: 'Status', status: 'Failure', ...status }, { code: status.code ?? 500 });
}
