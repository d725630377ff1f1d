import type { Observable } from 'rxjs';
import { ignoreElements } from 'rxjs';
import type { Permission } from './permission.js';

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
 * - `isWebhookServer: true` → started after the HTTP servers, stopped just before them;
 * - `synced$` or `waitForSync(signal)` → a cache: the manager waits until it has synced before
 *   starting anything that is not an HTTP server (`synced$` wins when both exist);
 * - `needLeaderElection` false → starts without leadership; true/absent → only while leading.
 */
export interface Runnable {
  start(signal: AbortSignal): RunnableResult;
  /** Name used in logs and errors. */
  readonly name?: string;
  /**
   * The name a controller reports its metrics under (`controller` label): a manager runs at most
   * one runnable per `controllerName` and refuses a second with a `DuplicateControllerNameError`.
   * Unset for everything but controllers (and for controllers built with `skipNameValidation`).
   */
  readonly controllerName?: string;
  readonly needLeaderElection?: boolean | (() => boolean);
  readonly isHttpServer?: boolean;
  /** A webhook server: started after the HTTP servers and before the caches, stopped after the caches. */
  readonly isWebhookServer?: boolean;
  /** Resolves true once synced, false if it gave up (e.g. `signal` aborted). */
  waitForSync?(signal: AbortSignal): Promise<boolean>;
  /** Emits true once synced (a cache-like runnable may offer this instead of `waitForSync`). */
  readonly synced$?: Observable<boolean>;
  /** For HTTP servers: resolves once listening. */
  readonly listening?: Promise<unknown>;
  /**
   * Called by the manager when the runnable is added to it (before `start`), with the parts the
   * manager shares: its logger, metrics registry, client and event recorders (see
   * {@link RunnableDeps}). A runnable uses what it was not given explicitly and ignores the rest.
   */
  inject?(deps: RunnableDeps): void;
  /** What the runnable does on the API server, for the manager's derived RBAC rules (`mgr.rbac()`). */
  permissions?(): readonly Permission[];
  /**
   * What should fail the manager's liveness probe now, one line each (empty when healthy): a
   * controller names its stuck reconciles. The manager's built-in `/healthz` check `reconciles`
   * reads it from every runnable offering it.
   */
  livenessProblems?(): readonly string[];
  /**
   * Called by the manager the moment leadership is lost (leader-election runnables only), with the
   * `LeadershipLostError`, also when the runnable is already stopping gracefully: stop at once and
   * write nothing more (a controller aborts its running reconciles and fences their writes). A
   * runnable without it sees the same reason as its signal's `reason` when the loss is what
   * stopped it.
   */
  fence?(reason: unknown): void;
  /**
   * Warm-up of a leader-election runnable (a controller built with `warmup: true`): the manager
   * calls it before campaigning, in its warm-up group, with that group's signal (aborted in the
   * stop procedure, after the leader-election group stopped). It prepares whatever needs no
   * leadership (a controller registers on its sources and holds their requests) and must write
   * nothing; `start` follows once leading. A rejection is a runnable error. Ignored for runnables
   * that do not need leader election.
   */
  warmup?(signal: AbortSignal): RunnableResult;
}

/**
 * A typed key for one part a manager shares with its runnables (see {@link RunnableDeps}). Each
 * layer defines the keys of its own types (the logger's key in logging, the client's in client, …),
 * so this contract needs none of them.
 */
export interface DependencyKey<T> {
  readonly id: symbol;
  /** Keeps `T` in the type; never set. */
  readonly type?: (value: T) => T;
}

/** Creates a {@link DependencyKey}; `description` names it in errors and debugging. */
export function dependencyKey<T>(description: string): DependencyKey<T> {
  return { id: Symbol(description) };
}

/**
 * What a manager hands to `Runnable.inject`: the runnable's name as the manager knows it, and the
 * manager's shared parts by key (`deps.get(LOGGER_KEY)`, `deps.get(KUBE_CLIENT_KEY)`, …);
 * `undefined` when the manager has none of that kind (e.g. no client).
 */
export interface RunnableDeps {
  /** The runnable's name (its `name`, else its group's). */
  readonly name: string;
  get<T>(key: DependencyKey<T>): T | undefined;
}

/** A {@link RunnableDeps} over a map of parts (key → value, or a function computing it on first use). */
export function runnableDeps(name: string, parts: ReadonlyMap<symbol, () => unknown>): RunnableDeps {
  return {
    name,
    get: <T>(key: DependencyKey<T>): T | undefined => parts.get(key.id)?.() as T | undefined,
  };
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
  /** Called with the manager's shared parts when the runnable is added to a manager. */
  readonly inject?: (deps: RunnableDeps) => void;
  /** What the cache reads (get/list/watch of its resources), for the manager's RBAC rules. */
  readonly permissions?: () => readonly Permission[];
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
    ...(options.inject === undefined ? {} : { inject: options.inject }),
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    start: () => options.source.pipe(ignoreElements()),
    synced$: options.synced$,
  };
}
