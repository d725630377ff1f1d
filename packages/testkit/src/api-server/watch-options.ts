/**
 * The streaming-list parameters of a watch (`sendInitialEvents`, `resourceVersionMatch`,
 * `allowWatchBookmarks`), validated as the emulated Kubernetes version does: from 1.27 a
 * streaming list is served; before, `sendInitialEvents` is an unknown parameter (ignored) and any
 * `resourceVersionMatch` on a watch is 422 Invalid, with every failed rule listed as 1.20's
 * `ValidateListOptions` lists them.
 */
import { isTrue } from './http-io.js';
import { servesStreamingLists, type KubernetesVersion } from './kubernetes-version.js';
import { invalidListOptions } from './list-operation.js';
import { failure, StatusError } from './status-error.js';

/** What a watch asked for, once its parameters are valid. */
export interface WatchListParams {
  /** `sendInitialEvents` as sent (null when absent, or ignored by the emulated version). */
  readonly sendInitialParam: string | null;
  /** True for a streaming list (`sendInitialEvents=true`). */
  readonly sendInitial: boolean;
  readonly bookmarks: boolean;
}

interface FieldError {
  readonly reason: 'FieldValueForbidden' | 'FieldValueNotSupported';
  readonly message: string;
}

/** 422 Invalid naming every error of `resourceVersionMatch` (`[a, b]` when there are several, as Go's aggregate). */
function invalidMatch(errors: readonly FieldError[]): StatusError {
  const texts = errors.map((e) => `resourceVersionMatch: ${e.message}`);
  const text = texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
  return new StatusError(
    failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${text}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: errors.map((e) => ({ reason: e.reason, message: e.message, field: 'resourceVersionMatch' }) as never),
    }),
  );
}

/** A watch's `resourceVersionMatch` checked by 1.20's `ValidateListOptions` (every match on a watch is refused). */
function refuseMatchBeforeWatchList(q: URLSearchParams, match: string): void {
  const rv = q.get('resourceVersion') ?? '';
  const errors: FieldError[] = [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden for watch' }];
  if (rv === '') errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' });
  if ((q.get('continue') ?? '') !== '') errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided' });
  if (match !== 'Exact' && match !== 'NotOlderThan') {
    errors.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""` });
  }
  if (match === 'Exact' && rv === '0') errors.push({ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
  throw invalidMatch(errors);
}

/** Validates a watch's streaming-list parameters for the emulated version; throws a 422 StatusError. */
export function watchListParams(q: URLSearchParams, kubernetesVersion: KubernetesVersion): WatchListParams {
  const match = q.get('resourceVersionMatch') ?? '';
  const bookmarks = isTrue(q.get('allowWatchBookmarks'));
  if (!servesStreamingLists(kubernetesVersion)) {
    if (match !== '') refuseMatchBeforeWatchList(q, match);
    return { sendInitialParam: null, sendInitial: false, bookmarks };
  }
  const sendInitialParam = q.get('sendInitialEvents');
  const sendInitial = isTrue(sendInitialParam);
  if (sendInitialParam !== null) {
    if (match !== 'NotOlderThan') throw invalidListOptions('sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan');
    if (sendInitial && !bookmarks) throw invalidListOptions('allowWatchBookmarks', 'Forbidden: allowWatchBookmarks must be set to true when sendInitialEvents is set to true');
  } else if (match !== '') {
    throw invalidListOptions('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  return { sendInitialParam, sendInitial, bookmarks };
}
