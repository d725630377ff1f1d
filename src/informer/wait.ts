import { defer, type Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { metaNamespaceKey, type ObjectKey } from '../cache/keys.js';
import { type CachedWrite, cachedWriteCheck, untilCached } from './until-cached.js';
import { type CacheSource, storeOf, until as untilMatch, waitFor, WaitTimeoutError, type WaitOptions } from './until.js';

/** Options of `until(source, key, predicate, options)`. Durations in ms. */
export interface UntilOptions extends WaitOptions {
  /**
   * A write of this process to wait for first (as `until.cached` does: the server's answer, or
   * `{ deleted: object | key }`): the predicate is tested only once the cache shows it. Without
   * it, `until` tests the cache as it is, which may not have seen a write the caller just made:
   * `until(src, key, (o) => o === undefined)` right after creating the object passes at once
   * when the cache has not seen the create yet.
   */
  readonly after?: CachedWrite;
}

function untilObject<T extends KubeObject>(
  source: CacheSource<T>,
  key: ObjectKey | KubeObject,
  predicate: (object: T | undefined) => boolean,
  options: UntilOptions = {},
): Observable<T | undefined> {
  const { after, ...wait } = options;
  if (after === undefined) return untilMatch(source, key, predicate, wait);
  const k = typeof key === 'string' ? key : metaNamespaceKey(key);
  const store = storeOf(source);
  const written = cachedWriteCheck(source, after);
  return defer(() => {
    // Once the cache showed the write it stays shown, even if the object changes or goes later.
    let shown = false;
    return waitFor(source, `${k} after ${written.describe}`, () => {
      shown ||= written.check() !== undefined;
      if (!shown) return undefined;
      const object = store.get(k);
      return predicate(object) ? { value: object } : undefined;
    }, wait);
  });
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
 * **`until` reads the cache as it is.** A cache lags the server: right after this process wrote,
 * it may not show the write yet, and a predicate can pass on the stale copy (waiting for an object
 * to be gone right after creating it passes at once if the cache never saw the create). After a
 * write of your own, give it as `after` (`until(src, key, predicate, { after: written })`), or wait
 * for `until.cached(src, written)` first. A controller's reconciles need neither: read-your-writes
 * is on by default there (docs/read-your-writes.md).
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
 * const copy = await client.objects(resources.configMaps, 'ns').create(orphan);
 * await firstValueFrom(until(cms, copy, (o) => o === undefined, { after: copy, timeoutMs: 30_000 })); // not before the cache saw it
 * ```
 */
export const until: typeof untilObject & { readonly cached: typeof cached; readonly TimeoutError: typeof WaitTimeoutError } = Object.assign(untilObject, {
  cached,
  TimeoutError: WaitTimeoutError,
});
