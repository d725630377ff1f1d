import type { Observable } from 'rxjs';
import { ignoreElements } from 'rxjs';

/** What a runnable's `start` may return: a Promise that settles when it ends, an Observable, or nothing. */
export type RunnableResult = Promise<void> | Observable<unknown> | void;

/**
 * Something the manager runs until it is told to stop.
 *
 * `start(signal)` runs the component: a returned Promise settles when it has stopped (rejection =
 * runnable error); a returned Observable is subscribed, its completion ends the runnable, its error
 * is a runnable error, and it is unsubscribed when `signal` aborts. The runnable must stop when
 * `signal` aborts.
 *
 * Optional capabilities decide its group (CR-12):
 * - `isHttpServer: true` → started first, stopped last;
 * - `synced$` or `waitForSync(signal)` → a cache: the manager waits until it has synced before
 *   starting anything that is not an HTTP server (`synced$` wins when both exist);
 * - `needLeaderElection` false → starts without leadership; true/absent → only while leading.
 */
export interface Runnable {
  start(signal: AbortSignal): RunnableResult;
  /** Name used in logs and errors. */
  readonly name?: string;
  readonly needLeaderElection?: boolean | (() => boolean);
  readonly isHttpServer?: boolean;
  /** Resolves true once synced, false if it gave up (e.g. `signal` aborted). */
  waitForSync?(signal: AbortSignal): Promise<boolean>;
  /** Emits true once synced (a cache-like runnable may offer this instead of `waitForSync`). */
  readonly synced$?: Observable<boolean>;
  /** For HTTP servers: resolves once listening. */
  readonly listening?: Promise<unknown>;
}

/** A runnable, or just its start function (e.g. an Observable factory). */
export type RunnableLike = Runnable | ((signal: AbortSignal) => RunnableResult);

/** Normalises a {@link RunnableLike} into a {@link Runnable}. */
export function toRunnable(r: RunnableLike): Runnable {
  if (typeof r === 'function') return { start: r, name: r.name || undefined };
  return r;
}

/** Options of {@link cacheRunnable}. */
export interface CacheRunnableOptions {
  readonly name?: string;
  /** Kept subscribed while the manager runs (e.g. an informer's event stream); its error is a runnable error. */
  readonly source: Observable<unknown>;
  /** Emits true once the cache has synced (e.g. the informer's `synced$`). */
  readonly synced$: Observable<boolean>;
}

/**
 * Wraps a cache that runs while subscribed (a shared informer, a factory's combined stream) as a
 * cache runnable: the manager subscribes `source` when caches start, waits for `synced$` before
 * starting controllers, and unsubscribes when caches stop.
 */
export function cacheRunnable(options: CacheRunnableOptions): Runnable {
  return {
    ...(options.name === undefined ? {} : { name: options.name }),
    start: () => options.source.pipe(ignoreElements()),
    synced$: options.synced$,
  };
}
