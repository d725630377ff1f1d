import { BehaviorSubject, distinctUntilChanged, ignoreElements, lastValueFrom, Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { Permission } from '../api/permission.js';
import type { Runnable, RunnableDeps } from '../api/runnable.js';
import type { Store } from '../cache/store.js';
import type { ReconcileOutcome } from '../workqueue/reconcile-result.js';
import { defineController, withInjectedParts } from './controller-definition.js';
import { injectedParts } from './controller-deps.js';
import { ControllerError, ControllerStartedTwiceError } from './controller-errors.js';
import type { ControllerOptions } from './controller-options.js';
import { ControllerRun } from './controller-run.js';

export type {
  ControllerOptions,
  ControllerReconciler,
  ForSpec,
  OwnsSpec,
  ResourceType,
  WatchSpec,
} from './controller-options.js';

/** A built controller: a manager runnable, or run alone with {@link Controller.run}. */
export interface Controller<T extends KubeObject = KubeObject> extends Runnable {
  readonly name: string;
  readonly needLeaderElection: boolean;
  /** The `for` type's store (or an empty store). */
  readonly store: Store<T>;
  /**
   * Runs until `signal` aborts, then stops gracefully. Rejects with {@link rxkube/controller!CacheSyncTimeoutError}
   * when the caches do not sync in time, {@link ControllerStartedTwiceError} on a second start.
   */
  start(signal: AbortSignal): Promise<void>;
  /**
   * `true` while the workers run (every cache synced, CR-5), `false` before and after. Replays the
   * current value. (Named `ready$`, not `synced$`: the manager would take it for a cache.)
   */
  readonly ready$: Observable<boolean>;
  /** A readiness check for the manager (`mgr.addReadyzCheck(name, c.readyCheck)`): throws until the workers run. */
  readyCheck(): void;
  /**
   * The controller as a stream of reconcile outcomes. Subscribing starts it (once per
   * controller); `signal` (or unsubscribing, abruptly) stops it.
   */
  run(signal?: AbortSignal): Observable<ReconcileOutcome>;
  /**
   * Called by a manager on `add`: the controller takes the manager's logger, metrics registry,
   * client and an event recorder named after the controller, for each of them its options left
   * out. No effect once started.
   */
  inject(deps: RunnableDeps): void;
  /** The `permissions` of its options, for the manager's derived RBAC rules. */
  permissions(): readonly Permission[];
  /**
   * Warm standby (present with the `warmup: true` option): the manager calls it before it campaigns.
   * Registers a handler on every source and holds their requests, coalesced per key, without
   * reconciling or writing anything, until `start` (leadership gained) releases them to the workers
   * — at once, without waiting for a sync that already happened. Settles when `signal` aborts
   * (releasing the registrations if `start` never came); rejects when a source fails meanwhile.
   */
  warmup?(signal: AbortSignal): Promise<void>;
  /** Leadership was lost: abort the running reconciles now (reason `reason`), dequeue nothing more, fence their writes. */
  fence?(reason: unknown): void;
  /** Its stuck reconciles, one line each (see `stuckReconcileThresholdMs`); backs the manager's `/healthz` check `reconciles`. */
  livenessProblems?(): readonly string[];
}

/**
 * Builds a controller (controller-runtime's builder, CR-4..CR-9): `for` / `owns` / `watches`
 * sources are turned into requests, filtered by predicates, queued by the `workQueue` operator (`rxkube/operators`)
 * operator and reconciled by `reconcile(request, ctx)`. The controller registers a handler on
 * every source at start, queues requests from the initial lists (at low priority, PQ-2), and
 * reconciles only once every registration has synced (CR-5), failing after `cacheSyncTimeout`.
 *
 * Sources are informers (through an `informers` factory, or {@link informerSource}) or any
 * {@link ControllerSource} (e.g. `fakeSource` in tests). Events that arrive while the caches sync
 * coalesce per key; after that, every request goes through the queue (one reconcile per key at a
 * time, rate-limited retries, `requeueAfter`). Each reconcile gets a {@link ReconcileContext}:
 * the cached object, listers, a typed client, a logger with a reconcile id, an event recorder and
 * the AbortSignal.
 *
 * ```ts
 * const factory = new InformerFactory(client, { namespace: 'default' });
 * const c = controller({
 *   for: WIDGETS,                                   // a resource type: resolved through `informers`
 *   owns: [resources.configMaps],                   // events of owned objects reconcile the owner
 *   watches: [{ source: resources.secrets, map: (s) => [s.metadata.labels?.['widget'] ?? ''] }],  // s: Cached<K8s.Secret>
 *   predicates: [generationChanged()],
 *   informers: factory, client,
 *   reconcile: async (req, ctx) => {
 *     const widget = ctx.object;                    // from the cache; undefined when deleted
 *     if (widget === undefined) return;
 *     await ensureConfigMap(ctx.objects(resources.configMaps, req.namespace), widget);
 *     return { requeueAfter: 60_000 };
 *   },
 * });
 * mgr.add(factory.runnable()); mgr.add(c);          // after controller(): the factory knows its informers
 * // or alone: await c.start(signal), or c.run(signal).subscribe((outcome) => …)
 * ```
 * @throws ControllerBuildError for an invalid definition (CR-7).
 */
export function controller<
  T extends KubeObject = KubeObject,
  const W extends readonly KubeObject[] = readonly KubeObject[],
  const O extends readonly KubeObject[] = readonly KubeObject[],
>(typedOptions: ControllerOptions<T, W, O>): Controller<T> {
  // The entries' own types only serve the type check of the call; the build is the same for all.
  const options = typedOptions as unknown as ControllerOptions<T>;
  let def = defineController(options);
  const ready = new BehaviorSubject(false);
  let started = false;
  let current: ControllerRun<T> | undefined;
  const run = (signal?: AbortSignal): Observable<ReconcileOutcome> =>
    new Observable<ReconcileOutcome>((subscriber) => {
      if (started) {
        subscriber.error(new ControllerStartedTwiceError(def.name));
        return;
      }
      started = true;
      const controllerRun = current?.isWarming === true ? current : new ControllerRun(def, ready);
      current = controllerRun;
      controllerRun.start(subscriber, signal);
      return () => controllerRun.stop();
    });
  /** Warm standby (`warmup` option): registers on the sources and holds their requests until `run`. */
  const warmup = (signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (started || current !== undefined) return resolve(); // running or warming already
      const warmRun = new ControllerRun(def, ready);
      current = warmRun;
      const end = (): void => {
        warmRun.endWarmup();
        resolve();
      };
      if (signal.aborted) return end();
      signal.addEventListener('abort', end, { once: true });
      warmRun.warm((err) => {
        signal.removeEventListener('abort', end);
        reject(err);
      });
    });

  return {
    name: def.name,
    ...(options.skipNameValidation === true ? {} : { controllerName: def.name }),
    needLeaderElection: def.needLeaderElection,
    ...(options.warmup === true ? { warmup } : {}),
    store: def.forStore,
    ready$: ready.pipe(distinctUntilChanged()),
    readyCheck: () => {
      if (!ready.value) throw new ControllerError(`controller ${def.name} is not running (caches not synced or stopped)`);
    },
    run,
    inject: (deps) => {
      if (!started && current === undefined) def = withInjectedParts(def, options, injectedParts(deps, def.name));
    },
    permissions: () => options.permissions ?? [],
    livenessProblems: () => def.stuck.problems(),
    fence: (reason) => current?.fence(reason),
    start: (signal: AbortSignal) => lastValueFrom(run(signal).pipe(ignoreElements()), { defaultValue: undefined }),
  };
}
