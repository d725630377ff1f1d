import type { UnstructuredObject } from 'rxkube';
import type { ObjectStore, StoredEntry } from './object-store.js';
import { badRequest, expired, failure, StatusError, tooLargeResourceVersion } from './status-error.js';

/** Query parameters of a list. */
export interface ListQuery {
  readonly resourceId: string;
  readonly namespace: string | undefined;
  readonly matches: (object: UnstructuredObject) => boolean;
  /** True when a label or field selector is set (then no remainingItemCount, as kube-apiserver). */
  readonly selective: boolean;
  readonly limit: number | undefined;
  readonly continueToken: string | undefined;
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: string | undefined;
  /**
   * Page a `resourceVersion=0` list by `limit` (default false: as kube-apiserver's watch cache,
   * such a list is served whole in one response and `limit` is ignored).
   */
  readonly pageResourceVersionZero?: boolean;
}

/** One page of a list. */
export interface ListPage {
  readonly resourceVersion: number;
  readonly items: readonly StoredEntry[];
  readonly continueToken: string | undefined;
  readonly remainingItemCount: number | undefined;
}

interface ContinueKey {
  readonly v: string;
  readonly rv: number;
  readonly start: string;
}

/** kube-apiserver's continue token: base64 JSON `{v, rv, start}`. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start } satisfies ContinueKey)).toString('base64');
}

function decodeContinue(token: string): ContinueKey {
  const invalidToken = () => badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  let parsed: Partial<ContinueKey> | null;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Partial<ContinueKey> | null;
  } catch {
    throw invalidToken();
  }
  if (parsed?.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') throw invalidToken();
  return { v: parsed.v, rv: parsed.rv, start: parsed.start };
}

/** 422 Invalid for list options, as kube-apiserver validates them. */
export function invalidListOptions(field: string, message: string): StatusError {
  return new StatusError(
    failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'ListOptions',
      causes: [{ reason: 'FieldValueForbidden', message, field } as never],
    }),
  );
}

function parseRv(rv: string): number {
  if (!/^\d+$/.test(rv)) throw badRequest(`invalid resource version: ${rv}`);
  return Number(rv);
}

function lowerBound(entries: readonly StoredEntry[], key: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid]?.key ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Serves one page of a list with kube-apiserver's resourceVersion semantics:
 * unset → latest; `0` → any (latest here, whole: `limit` ignored, as the watch cache); `NotOlderThan` → latest, 504 if the version is in the
 * future; `Exact` (or a version with `limit` and no match, the legacy form) → the state at that
 * version, 410 Expired if compacted. `continue` resumes the snapshot of the first page.
 */
export function listPage(store: ObjectStore, q: ListQuery): ListPage {
  const rvParam = q.resourceVersion ?? '';
  const match = q.resourceVersionMatch ?? '';
  let atRv = store.resourceVersion;
  let start = '';
  if (q.continueToken !== undefined && q.continueToken !== '') {
    if (rvParam !== '' && rvParam !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    if (match !== '') throw invalidListOptions('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden when continue is provided');
    const key = decodeContinue(q.continueToken);
    if (key.rv < store.oldestRetainedRv) {
      throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
    }
    atRv = key.rv;
    start = key.start;
  } else {
    if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
      throw invalidListOptions('resourceVersionMatch', `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`);
    }
    if (match !== '' && rvParam === '') throw invalidListOptions('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (match === 'Exact' && rvParam === '0') throw invalidListOptions('resourceVersionMatch', 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    if (rvParam !== '' && rvParam !== '0') {
      const asked = parseRv(rvParam);
      if (asked > store.resourceVersion) throw tooLargeResourceVersion(asked, store.resourceVersion);
      const exact = match === 'Exact' || (match === '' && q.limit !== undefined && q.limit > 0);
      if (exact) {
        if (asked < store.oldestRetainedRv) throw expired('The resourceVersion for the provided list is too old.');
        atRv = asked;
      }
    }
  }
  const all = store.snapshot(q.resourceId, atRv);
  const nsPrefix = q.namespace !== undefined ? `${q.namespace}/` : '';
  let i = lowerBound(all, start > nsPrefix ? start : nsPrefix);
  const items: StoredEntry[] = [];
  // kube-apiserver serves `resourceVersion=0` (without continue) from its watch cache: everything
  // in one response, limit ignored (informers' first list). An Exact match would have failed above.
  const fromCache = rvParam === '0' && start === '' && (q.continueToken ?? '') === '' && q.pageResourceVersionZero !== true;
  const limit = q.limit !== undefined && q.limit > 0 && !fromCache ? q.limit : Infinity;
  for (; i < all.length && items.length < limit; i++) {
    const e = all[i];
    if (e === undefined) continue;
    if (nsPrefix !== '' && !e.key.startsWith(nsPrefix)) break;
    if (q.matches(e.object)) items.push(e);
  }
  // Is anything left that matches?
  let remaining = 0;
  let more = false;
  if (items.length >= limit && nsPrefix === '' && !q.selective) {
    remaining = all.length - i;
    more = remaining > 0;
  } else if (items.length >= limit) {
    for (let j = i; j < all.length; j++) {
      const e = all[j];
      if (e === undefined) continue;
      if (nsPrefix !== '' && !e.key.startsWith(nsPrefix)) break;
      if (q.selective) {
        if (q.matches(e.object)) {
          more = true;
          break;
        }
      } else remaining++;
    }
    if (!q.selective) more = remaining > 0;
  }
  const last = items[items.length - 1];
  return {
    resourceVersion: atRv,
    items,
    continueToken: more && last !== undefined ? encodeContinue(atRv, `${last.key}\u0000`) : undefined,
    remainingItemCount: more && !q.selective ? remaining : undefined,
  };
}

/** Serializes a page as `{kind}List` JSON without re-serializing the stored objects. */
export function listJson(kind: string, apiVersion: string, page: ListPage): string {
  const meta: Record<string, string | number> = { resourceVersion: String(page.resourceVersion) };
  if (page.continueToken !== undefined) meta['continue'] = page.continueToken;
  if (page.remainingItemCount !== undefined) meta['remainingItemCount'] = page.remainingItemCount;
  const items = page.items.map((e) => e.json).join(',');
  return `{"kind":"${kind}List","apiVersion":"${apiVersion}","metadata":${JSON.stringify(meta)},"items":[${items}]}`;
}
