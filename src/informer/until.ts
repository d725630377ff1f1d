import { Observable, type SchedulerLike, asyncScheduler, timer } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ErrorLayer } from '../api/rxkube-error.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { metaNamespaceKey, type ObjectKey } from '../cache/keys.js';
import type { Store } from '../cache/store.js';
import { InformerError } from './informer-errors.js';

/** A wait (`until`, `until.cached`) did not see what it waited for in time. */
export class WaitTimeoutError extends InformerError {
  static override readonly code: string = 'INFORMER_WAIT_TIMEOUT';
  static override readonly layer: ErrorLayer = 'informer';
  override readonly name = 'WaitTimeoutError';
  constructor(
    /** What was waited for, e.g. `ns/name`. */
    readonly key: string,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${key}`);
  }
}

/**
 * What a wait watches: an informer (`{ store, events$ }`, e.g. a `SharedInformer`), a controller
 * source (`{ store, register() }`, e.g. `informerSource(…)` or `fakeSource`), or a bare
 * {@link Store} (polled every `pollMs`).
 */
export type CacheSource<T extends KubeObject = KubeObject> =
  | { readonly store: Store<T>; readonly events$: Observable<InformerEvent<T>>; readonly lastSyncResourceVersion?: string }
  | { readonly store: Store<T>; register(): { readonly events$: Observable<InformerEvent<T>> } }
  | Store<T>;

/** Options of `until` and `until.cached`. Durations in ms. */
export interface WaitOptions {
  /** Error with {@link WaitTimeoutError} after this long; default: wait forever. */
  readonly timeoutMs?: number;
  /** Timers (timeout, polling); default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Re-check period for a bare `Store` source; default 100. */
  readonly pollMs?: number;
}

/** The store behind a source. */
export function storeOf<T extends KubeObject>(source: CacheSource<T>): Store<T> {
  return 'store' in source ? source.store : source;
}

/** A stream that emits whenever the source's cache may have changed. */
function changesOf<T extends KubeObject>(source: CacheSource<T>, scheduler: SchedulerLike, pollMs: number): Observable<unknown> {
  if ('events$' in source) return source.events$;
  if ('register' in source) return source.register().events$;
  return timer(pollMs, pollMs, scheduler);
}

/** Internal: emits `check()`'s value and completes as soon as it returns one; errors on timeout. */
export function waitFor<T extends KubeObject, R>(
  source: CacheSource<T>,
  describe: string,
  check: () => { readonly value: R } | undefined,
  options: WaitOptions,
): Observable<R> {
  const scheduler = options.scheduler ?? asyncScheduler;
  return new Observable<R>((subscriber) => {
    const attempt = (): boolean => {
      const found = check();
      if (found === undefined) return false;
      subscriber.next(found.value);
      subscriber.complete();
      return true;
    };
    if (attempt()) return undefined;
    const sub = changesOf(source, scheduler, options.pollMs ?? 100).subscribe({
      next: () => void attempt(),
      error: (err: unknown) => subscriber.error(err),
    });
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      sub.add(scheduler.schedule(() => subscriber.error(new WaitTimeoutError(describe, ms)), ms));
    }
    return sub;
  });
}

/**
 * Waits until the cached object under `key` satisfies `predicate` (which sees `undefined` while
 * the key is not cached), then emits it (or `undefined`) and completes. Checks at once, then on
 * every change the source reports; errors with {@link WaitTimeoutError} after `timeoutMs` on the
 * scheduler. Typical predicates: a CRD `Established`, a pod Ready, `(o) => o === undefined`
 * (deleted). Reads the cache as it is: right after a write of this process the cache may not show
 * it yet, and the predicate can pass on the stale copy; the public `until` takes the write as
 * `after` (or wait for `until.cached` first).
 *
 * ```
 * cache (key):  a1---a2------a3        predicate true for a3 only
 * until:        -------------(a3|)
 * timeoutMs 5:  -----#                 WaitTimeoutError
 * ```
 *
 * @example
 * ```ts
 * await firstValueFrom(until(crds, 'widgets.example.com',
 *   (crd) => conditions.isTrue(conditions.of(crd), 'Established'), { timeoutMs: 30_000 }));
 * ```
 */
export function until<T extends KubeObject>(
  source: CacheSource<T>,
  key: ObjectKey | KubeObject,
  predicate: (object: T | undefined) => boolean,
  options: WaitOptions = {},
): Observable<T | undefined> {
  const k = typeof key === 'string' ? key : metaNamespaceKey(key);
  const store = storeOf(source);
  return waitFor(source, k, () => {
    const object = store.get(k);
    return predicate(object) ? { value: object } : undefined;
  }, options);
}
