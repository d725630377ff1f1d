import type { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ObjectKey } from '../cache/keys.js';
import { type CachedWrite, untilCached } from './until-cached.js';
import { type CacheSource, until as untilMatch, WaitTimeoutError, type WaitOptions } from './until.js';

function untilObject<T extends KubeObject>(
  source: CacheSource<T>,
  key: ObjectKey | KubeObject,
  predicate: (object: T | undefined) => boolean,
  options?: WaitOptions,
): Observable<T | undefined> {
  return untilMatch(source, key, predicate, options);
}

function cached<T extends KubeObject>(source: CacheSource<T>, write: CachedWrite, options?: WaitOptions): Observable<T | undefined> {
  return untilCached(source, write, options);
}

/**
 * Waits on a cache, as Observables that emit once and complete, with an optional timeout on the
 * scheduler (`WaitTimeoutError`):
 *
 * - `until(source, key, predicate, options?)`: until the cached object under `key` satisfies
 *   `predicate` (a CRD Established, a pod Ready, `(o) => o === undefined` for deleted);
 * - `until.cached(source, write, options?)`: read-your-writes, until the cache holds the write's
 *   resourceVersion or newer for its key (`write` is the server's answer), or the delete
 *   (`{ deleted: object | key }`);
 * - `until.TimeoutError`: the error of a wait that timed out (`WaitTimeoutError`, for `instanceof`).
 *
 * ```
 * cache (key):  a1---a2------a3        predicate true for a3 only
 * until:        -------------(a3|)
 * ```
 *
 * @example
 * ```ts
 * const written = await ctx.objects().apply(desired);
 * await firstValueFrom(until.cached(informer, written, { timeoutMs: 10_000 }));
 * await firstValueFrom(until(crds, 'widgets.example.com', (crd) => conditions.isTrue(conditions.of(crd), 'Established')));
 * ```
 */
export const until: typeof untilObject & { readonly cached: typeof cached; readonly TimeoutError: typeof WaitTimeoutError } = Object.assign(untilObject, {
  cached,
  TimeoutError: WaitTimeoutError,
});
