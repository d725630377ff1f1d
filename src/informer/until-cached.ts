import type { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { metaNamespaceKey, type ObjectKey } from '../cache/keys.js';
import { type CacheSource, storeOf, waitFor, type WaitOptions } from './until.js';

/** A write to wait for: the object the server answered (create, update, patch, apply), or a delete. */
export type CachedWrite = KubeObject | { readonly deleted: KubeObject | ObjectKey };

function isDelete(write: CachedWrite): write is { readonly deleted: KubeObject | ObjectKey } {
  const d = (write as { deleted?: unknown }).deleted;
  return typeof d === 'string' || (typeof d === 'object' && d !== null);
}

/**
 * Compares two resourceVersions: negative, zero or positive as `a` is older, the same or newer.
 * resourceVersions are opaque to clients, but kube-apiserver's (and the embedded server's) are
 * etcd revisions, decimal integers; anything else compares equal only to itself (`undefined`
 * when not comparable).
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (a === b) return 0;
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Read-your-writes: completes once the cache of `source` has caught up with a write of this
 * process, so a reconcile (or a test) that reads the cache next sees its own write. Emits the
 * cached object (`undefined` for a delete) and completes when:
 *
 * - a write (`write` is the server's answer): the cache holds the key at the write's
 *   resourceVersion or newer (or a recreated object, another uid), or the informer's
 *   `lastSyncResourceVersion` has passed the write's (it has seen the write, even if the object
 *   changed or went away since);
 * - a delete (`{ deleted: object | key }`): the key is gone from the cache, or holds an object
 *   with another uid.
 *
 * Errors with `WaitTimeoutError` after `timeoutMs` on the scheduler.
 *
 * ```
 * write rv=7:   (the server answered at frame 0)
 * cache (key):  a5------a7
 * untilCached:  --------(a7|)
 * ```
 *
 * @example
 * ```ts
 * const written = await ctx.objects().apply(desired);
 * await firstValueFrom(until.cached(informer, written, { timeoutMs: 10_000 }));
 * ```
 */
export function untilCached<T extends KubeObject>(source: CacheSource<T>, write: CachedWrite, options: WaitOptions = {}): Observable<T | undefined> {
  const { describe, check } = cachedWriteCheck(source, write);
  return waitFor(source, describe, check, options);
}

/**
 * Internal (also behind `until`'s `after`): what {@link untilCached} waits for, as a check that
 * returns the cached object (`undefined` for a delete) once the cache shows `write`.
 */
export function cachedWriteCheck<T extends KubeObject>(
  source: CacheSource<T>,
  write: CachedWrite,
): { readonly describe: string; readonly check: () => { readonly value: T | undefined } | undefined } {
  const store = storeOf(source);
  if (isDelete(write)) {
    const target = write.deleted;
    const key = typeof target === 'string' ? target : metaNamespaceKey(target);
    const uid = typeof target === 'string' ? undefined : target.metadata?.uid;
    return {
      describe: `deletion of ${key}`,
      check: () => {
        const cached = store.get(key);
        return cached === undefined || (uid !== undefined && cached.metadata?.uid !== uid) ? { value: undefined } : undefined;
      },
    };
  }
  const written = write as KubeObject;
  const key = metaNamespaceKey(written);
  const rv = written.metadata?.resourceVersion;
  const uid = written.metadata?.uid;
  const lastSync = (): string | undefined => ('lastSyncResourceVersion' in source ? source.lastSyncResourceVersion : undefined);
  return {
    describe: `${key} at resourceVersion ${rv ?? '?'}`,
    check: () => {
      const cached = store.get(key);
      if (cached !== undefined) {
        if (uid !== undefined && cached.metadata?.uid !== undefined && cached.metadata.uid !== uid) return { value: cached };
        const order = compareResourceVersions(cached.metadata?.resourceVersion, rv);
        if (order !== undefined && order >= 0) return { value: cached };
      }
      const seen = compareResourceVersions(lastSync(), rv);
      return seen !== undefined && seen >= 0 ? { value: cached } : undefined;
    },
  };
}
