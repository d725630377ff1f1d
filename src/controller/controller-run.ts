import { type BehaviorSubject, first, type Subscriber, Subscription, tap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { recordReconcileMetrics } from '../metrics/record-reconcile-metrics.js';
import type { ReconcileOutcome } from '../workqueue/reconcile-result.js';
import { workQueue } from '../workqueue/work-queue.js';
import { isLeadershipLost } from '../leader-election/leadership-lost-error.js';
import { fencedRecorder } from './fenced-recorder.js';
import type { ControllerDefinition } from './controller-definition.js';
import { CacheSyncTimeoutError } from './controller-errors.js';
import { controllerParking, controllerReconciler } from './controller-reconciler.js';
import { sourceName, type SourceRegistration } from './controller-source.js';
import { RequestGate } from './request-gate.js';
import { ClusterFleet } from './cluster-fleet.js';
import { followDynamicWatches } from './dynamic-watches.js';
import type { Binding } from './source-bindings.js';

/**
 * The phases of one controller run:
 * - `idle`: built, not started;
 * - `warming` (warm standby, the `warmup` option): started by the manager before it leads; a
 *   handler is registered on every source and the requests are held (coalesced per key) without
 *   being reconciled, and no sync timeout runs. `start` (leadership gained) goes on to `running` at
 *   once when every registration synced, else to `waitingForCaches`;
 * - `waitingForCaches`: a handler is registered on every source and its requests are held until
 *   every registration synced (CR-5), bounded by `cacheSyncTimeoutMs`; a controller over a
 *   changing fleet (`clusters` as an Observable) has no sources of its own and goes straight on:
 *   its `ClusterFleet` holds each cluster's requests until that cluster synced;
 * - `running`: the workers reconcile from the work queue (`ready$` is true);
 * - `draining`: the stop signal aborted; the work queue lets running reconciles finish (up to
 *   `shutdownGracePeriodMs`), then completes the run. When the signal aborted with a
 *   `LeadershipLostError` (fencing), the queue is halted instead: every running reconcile's
 *   `ctx.signal` aborts at once with that reason, nothing more is dequeued, and the run completes
 *   without waiting (writes through `ctx` are refused from then on, see `fencedClient`, and the
 *   Events recorded through `ctx.recorder` and not sent yet are dropped, see `fencedRecorder`);
 * - `stopped`: final; the handlers, timer and queue input are released.
 */
export type ControllerRunState = 'idle' | 'warming' | 'waitingForCaches' | 'running' | 'draining' | 'stopped';

/** Every transition a run can take; any other is ignored (e.g. a sync arriving after the stop). */
const TRANSITIONS: { readonly [S in ControllerRunState]: readonly ControllerRunState[] } = {
  idle: ['warming', 'waitingForCaches', 'stopped'],
  warming: ['waitingForCaches', 'running', 'stopped'],
  waitingForCaches: ['running', 'stopped'],
  running: ['draining', 'stopped'],
  draining: ['stopped'],
  stopped: [],
};

interface Registration {
  readonly binding: Binding;
  readonly registration: SourceRegistration;
}

/**
 * One subscription of `controller().run()`. Internal: the public surface is `controller()`.
 * Every transition goes through {@link ControllerRun.enter}; timers run on the definition's
 * scheduler. The run ends by completing or erroring `out`, whose teardown calls `stop()`.
 */
export class ControllerRun<T extends KubeObject> {
  private state: ControllerRunState = 'idle';
  /** The registrations' event and sync subscriptions. */
  private readonly handlers = new Subscription();
  private readonly requests = new RequestGate();
  private registrations: readonly Registration[] = [];
  /** Indexes of the registrations that have not synced yet. */
  private readonly unsynced = new Set<number>();
  private syncTimer: Subscription | undefined;
  /** The work queue's graceful shutdown: aborted when the stop signal aborts. */
  private readonly shutdown = new AbortController();
  /**
   * Aborted (with the leadership-loss reason) to halt the work queue without grace; also the fence
   * of the Events the reconciles record (`ctx.recorder`).
   */
  private readonly halt = new AbortController();
  /** Set by {@link start}: where outcomes go; its completion or error ends the run. */
  private out: Subscriber<ReconcileOutcome> | undefined;
  private signal: AbortSignal | undefined;
  private registered = false;
  /** Where a source error goes while warming (no subscriber yet). */
  private warmFailed: ((err: unknown) => void) | undefined;
  /** The clusters of a controller over a changing fleet (`clusters` given as an Observable). */
  private readonly fleet: ClusterFleet<T> | undefined;

  constructor(
    private readonly def: ControllerDefinition<T>,
    private readonly ready: BehaviorSubject<boolean>,
  ) {
    const stream = def.clusterStream;
    this.fleet =
      stream === undefined
        ? undefined
        : new ClusterFleet({
            controller: def.name,
            stream,
            push: (add) => this.requests.push(add),
            scheduler: def.scheduler,
            cacheSyncTimeoutMs: def.cacheSyncTimeoutMs,
            logger: def.logger,
            forget: (cluster) => def.readYourWrites?.forgetCluster(cluster),
            metrics: def.metrics,
          });
  }

  /** True while warming: {@link start} takes this run over instead of building a new one. */
  get isWarming(): boolean {
    return this.state === 'warming';
  }

  /**
   * Warm standby: registers the handlers and holds their requests without reconciling, until
   * {@link start} or {@link endWarmup}. A source error while warming goes to `failed`.
   */
  warm(failed: (err: unknown) => void): void {
    this.warmFailed = failed;
    this.enter('warming');
  }

  /** The warm-up ended (its signal aborted) before {@link start}: releases the registrations. */
  endWarmup(): void {
    if (this.state === 'warming') this.enter('stopped');
  }

  /**
   * Registers the handlers (unless warming did) and waits for the caches — not at all when a warm
   * run's registrations all synced; from then on, `signal` stops the run.
   */
  start(out: Subscriber<ReconcileOutcome>, signal: AbortSignal | undefined): void {
    this.out = out;
    this.signal = signal;
    const warm = this.state === 'warming';
    if (warm) this.def.logger.info('Starting warm controller', { heldRequests: this.requests.heldCount, unsyncedSources: this.unsynced.size });
    this.enter(warm && this.unsynced.size === 0 ? 'running' : 'waitingForCaches');
    this.listenForStop();
  }

  /**
   * Fencing (leadership lost), also while draining: halts the work queue — every running
   * reconcile's signal aborts at once with `reason`, nothing more is dequeued — and drops the
   * Events its reconciles recorded that were not sent yet. Also after the run stopped (a graceful
   * stop whose Events the manager is still flushing): then only the Events are fenced.
   */
  fence(reason: unknown): void {
    if (this.halt.signal.aborted) return;
    const why = { reason: reason instanceof Error ? reason.message : String(reason) };
    if (this.state === 'stopped') this.def.logger.info('leadership lost after the controller stopped: fencing the Events it recorded', why);
    else this.def.logger.info('leadership lost: aborting running reconciles and fencing their writes', why);
    this.halt.abort(reason);
  }

  /** The subscription ended (completed, errored or unsubscribed): releases everything. */
  stop(): void {
    this.enter('stopped');
  }

  // ---- transitions -----------------------------------------------------------------------------

  private enter(next: ControllerRunState): void {
    if (!TRANSITIONS[this.state].includes(next)) return;
    this.state = next;
    switch (next) {
      case 'warming':
        this.registerSources();
        break;
      case 'waitingForCaches':
        this.waitForCaches();
        break;
      case 'running':
        this.startWorkers();
        break;
      case 'draining':
        break; // the work queue reacts to the same signal
      case 'stopped':
        this.release();
        break;
    }
  }

  // ---- what moves the run ----------------------------------------------------------------------

  private synced(index: number): void {
    this.unsynced.delete(index);
    if (this.unsynced.size === 0 && this.state === 'waitingForCaches') this.enter('running');
  }

  private syncTimedOut(): void {
    const sources = [...this.unsynced].map((i) => sourceName((this.registrations[i] as Registration).binding.source));
    this.fail(new CacheSyncTimeoutError(this.def.name, sources, this.def.cacheSyncTimeoutMs));
  }

  private readonly stopRequested = (): void => {
    const reason: unknown = this.signal?.reason;
    if (isLeadershipLost(reason)) this.fence(reason);
    if (this.state === 'waitingForCaches') this.complete(); // stopping before sync is not an error
    else this.enter('draining');
    this.shutdown.abort();
  };

  private fail(error: unknown): void {
    if (this.state === 'stopped') return;
    if (this.out !== undefined) this.out.error(error);
    else this.warmFailed?.(error);
    this.enter('stopped');
  }

  private complete(): void {
    this.out?.complete();
    this.enter('stopped');
  }

  private listenForStop(): void {
    if (this.signal === undefined || this.state === 'stopped') return;
    if (this.signal.aborted) this.stopRequested();
    else this.signal.addEventListener('abort', this.stopRequested, { once: true });
  }

  // ---- phases ----------------------------------------------------------------------------------

  /** `waitingForCaches`: register (unless warming did), wait for every registration to sync (CR-5). */
  private waitForCaches(): void {
    if (!this.registered) this.registerSources();
    if (this.unsynced.size > 0 && this.state === 'waitingForCaches') {
      this.def.logger.info('Waiting for caches to sync', { sources: this.registrations.map((r) => sourceName(r.binding.source)) });
      this.syncTimer = this.def.scheduler.schedule(() => this.syncTimedOut(), this.def.cacheSyncTimeoutMs);
    }
  }

  /** Registers a handler on every source; their requests are held until the workers start. */
  private registerSources(): void {
    this.registered = true;
    // Register every handler first, so the initial lists are queued while the caches sync.
    this.registrations = this.def.bindings.map((binding) => ({ binding, registration: binding.source.register() }));
    for (const { binding, registration } of this.registrations) {
      this.handlers.add(
        registration.events$.pipe(binding.toRequests).subscribe({
          next: (add) => this.requests.push(add),
          error: (err: unknown) => this.fail(err),
        }),
      );
    }
    // Dynamic watches join and leave while the run lasts; they do not hold the start (CR-5).
    if (this.def.dynamic !== undefined) this.handlers.add(followDynamicWatches(this.def.dynamic, (add) => this.requests.push(add), () => this.def.eventLog.current));
    // Nothing to wait for (a controller over a changing fleet, whose clusters each wait for their
    // own caches, or one with only dynamic watches): run at once, but never while warming.
    if (this.registrations.length === 0) {
      if (this.state === 'waitingForCaches') this.enter('running');
      return;
    }
    this.registrations.forEach((_, i) => this.unsynced.add(i));
    this.registrations.forEach(({ registration }, i) => {
      this.handlers.add(
        registration.synced$.pipe(first((v) => v === true)).subscribe({
          next: () => this.synced(i),
          error: (err: unknown) => this.fail(err),
        }),
      );
    });
  }

  /** `running`: the held requests, then every new one, go through the work queue to the workers. */
  private startWorkers(): void {
    const { concurrency, logger, metrics, name } = this.def;
    const park = controllerParking(this.def);
    this.syncTimer?.unsubscribe();
    logger.info('Starting workers', { workerCount: concurrency });
    this.ready.next(true);
    let outcomes$ = this.requests.open().pipe(
      // The reconciles' Events carry the fence: none is sent once leadership is lost.
      workQueue(controllerReconciler({ ...this.def, recorder: fencedRecorder(this.def.recorder, this.halt.signal) }), {
        ...this.def.queue,
        shutdown: this.shutdown.signal,
        halt: this.halt.signal,
        ...(this.fleet === undefined ? {} : { drop: this.fleet.drops }),
        ...(park === undefined ? {} : { park }),
      }),
      tap((o) => {
        if (o.kind === 'error' || o.kind === 'terminal_error') {
          logger.error('Reconciler error', { object: o.key, err: o.error, terminal: o.kind === 'terminal_error', ...(o.request.cluster === undefined ? {} : { cluster: o.request.cluster }) });
        }
      }),
    );
    if (metrics !== undefined) outcomes$ = outcomes$.pipe(recordReconcileMetrics(metrics, name, concurrency));
    // Subscribed with `out` itself: the queue's completion or error ends the run.
    if (this.out !== undefined) outcomes$.subscribe(this.out);
    this.fleet?.start();
  }

  /** `stopped`. */
  private release(): void {
    this.ready.next(false);
    this.syncTimer?.unsubscribe();
    this.signal?.removeEventListener('abort', this.stopRequested);
    this.handlers.unsubscribe();
    this.fleet?.stop();
    this.requests.close();
  }
}
