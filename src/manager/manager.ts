import type { AddressInfo } from 'node:net';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { Registry } from 'prom-client';
import { KubeClient } from '../client/kube-client.js';
import type { KubeConfigLike } from '../client/kube-config-like.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { fencedRecorder } from '../controller/fenced-recorder.js';
import { eventRecorder } from '../events/event-recorder.js';
import { clientEventsApi } from '../events/client-events-api.js';
import type { LogThreshold } from '../logging/default-logger.js';
import { defaultLogger } from '../logging/default-logger.js';
import type { Logger } from '../logging/logger.js';
import type { ManagerMetrics } from '../metrics/metrics-registry.js';
import { managerMetrics } from '../metrics/metrics-registry.js';
import { eventRecorderMetrics } from '../metrics/event-recorder-metrics.js';
import { processMetrics } from '../metrics/process-metrics.js';
import type { HealthCheck } from './healthz-handler.js';
import type { ManagerLeaderElectionConfig, ManagerLeaderElectionOptions } from './leader-election-options.js';
import { resolveManagerLeaderElection } from './leader-election-options.js';
import { kubeClientLeaseApi } from '../leader-election/kube-client-lease-api.js';
import { leaseLeadership } from './lease-leadership.js';
import { CheckerAfterStartError, DuplicateControllerNameError, ManagerConfigError, StopEngagedError } from './manager-errors.js';
import type { Runnable, RunnableLike } from '../api/runnable.js';
import { toRunnable } from '../api/runnable.js';
import { CacheMonitor, describeFailing, describeWaiting } from './cache-monitor.js';
import type { CandidacyOptions } from './manager-candidacy.js';
import { managerDeps } from './manager-deps.js';
import { managerPermissions } from './manager-permissions.js';
import { ManagerRun } from './manager-run.js';
import type { RbacRules } from './rbac.js';
import type { Webhook, WebhookServer } from '../webhook/webhook-server.js';
import { ProbeServers, type HealthServerOptions, type MetricsServerOptions } from './probe-servers.js';

export type { HealthServerOptions, MetricsServerOptions } from './probe-servers.js';

/** Options of {@link manager}. All durations are in milliseconds. */
export interface ManagerOptions {
  /** Cluster access; builds `mgr.client` unless `client` is given. */
  readonly kubeConfig?: KubeConfigLike;
  /** The client runnables, event recorders (and a default leader election) use. */
  readonly client?: KubeClient;
  /** Leader election; off when absent. */
  readonly leaderElection?: ManagerLeaderElectionOptions;
  /** Serve `/metrics`; no server when absent. */
  readonly metrics?: MetricsServerOptions;
  /** Serve `/healthz` and `/readyz`; no server when absent. */
  readonly health?: HealthServerOptions;
  /** Registry for this manager's metrics; default a fresh one (never the global registry). */
  readonly registry?: Registry;
  /** Default 30 000; 0 = don't wait for runnables to stop; < 0 = wait forever. */
  readonly gracefulShutdownTimeoutMs?: number;
  /**
   * How long `start()` waits for the caches to sync before it fails with a
   * `ManagerCacheSyncTimeoutError` naming each unsynced informer, its server and its last error.
   * Default 120 000 (2 minutes); 0 waits forever.
   */
  readonly cacheSyncTimeoutMs?: number;
  /**
   * After the caches synced, an informer whose list/watch keeps failing this long (no working
   * watch since the first failure) fails the readiness check `informers`, which names it, its
   * server, how long and the last error. Default 120 000 (2 minutes, see
   * `DEFAULT_WATCH_FAILURE_THRESHOLD_MS`); 0 turns the check off.
   */
  readonly watchFailureThresholdMs?: number;
  /**
   * The manager's logger, handed to everything added to it. Default {@link defaultLogger}: readable
   * lines on a terminal, JSON lines otherwise, on stderr, at `logLevel` (or `RXKUBE_LOG`, else `info`).
   */
  readonly logger?: Logger;
  /** Level of the default logger (ignored when `logger` is given); `off` silences it. */
  readonly logLevel?: LogThreshold;
  /**
   * Add prom-client's default process and Node.js metrics (`process_*`, `nodejs_*`) to the
   * registry. Default true.
   */
  readonly processMetrics?: boolean;
  /** Scheduler for the shutdown and cache-sync timers and the log rate limits. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * While the manager runs, catch the errors that would otherwise kill the process at once — an
   * exception thrown in a timer or callback, an unhandled rejection: each is logged (`error`, with
   * `controller`, `object` and `reconcileID` when it came from a reconcile or anything the reconcile
   * started) and the manager stops gracefully; `start()` then rejects with an `UncaughtError`.
   * Default true; false leaves Node's default (print and exit at once).
   */
  readonly catchUncaughtErrors?: boolean;
}

/** The manager (see {@link manager}). */
export interface Manager {
  /**
   * Adds a runnable to its group (CR-12); after start it starts at once. Throws during stop.
   * A webhook server (`webhookServer` of `rxkube/webhook`) goes to the webhooks group and brings
   * the `webhook` liveness and readiness checks (a TLS handshake with it).
   * A runnable with `inject` first receives the manager's shared parts: a controller takes the
   * manager's logger, metrics registry, client and an event recorder (each unless its options gave
   * one), an informer factory's runnable the logger and the informer monitor.
   * @throws DuplicateControllerNameError for a controller whose name an added controller has.
   */
  add(runnable: RunnableLike): void;
  /** Adds a liveness check; only before start. */
  addHealthzCheck(name: string, check: HealthCheck): void;
  /** Adds a readiness check; only before start. */
  addReadyzCheck(name: string, check: HealthCheck): void;
  /**
   * Runs everything until `signal` aborts (resolves) or a runnable fails (rejects with its error),
   * in both cases after the stop procedure (CR-13, CR-14).
   */
  start(signal?: AbortSignal): Promise<void>;
  /** Resolves once this manager leads (at once without leader election). */
  elected(): Promise<void>;
  /** Resolves with the health-probe server's address once listening. */
  healthAddress(): Promise<AddressInfo>;
  /** Resolves with the metrics server's address once listening. */
  metricsAddress(): Promise<AddressInfo>;
  /**
   * An event recorder reporting as `component` (controller-runtime's `GetEventRecorderFor`),
   * writing through `client`; shut down when the manager has stopped. With leader election it is
   * fenced by leadership ({@link fencedRecorder}): once leadership is lost, Events recorded
   * through it are refused and those queued and not sent yet are dropped (counted in
   * `rxkube_events_fenced_total`, logged once), whichever runnable records them; the Lease's own
   * "stopped leading" Event is still written.
   */
  getEventRecorder(component: string): EventRecorder;
  /** The manager's client (from `client` or `kubeConfig`); throws when neither was given. */
  readonly client: KubeClient;
  readonly metrics: ManagerMetrics;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  /** The resolved leader-election config, if enabled. */
  readonly leaderElection: ManagerLeaderElectionConfig | undefined;
  /**
   * The minimal RBAC rules for what this manager runs, derived from what it was given (call it
   * after adding everything): get/list/watch of every informer its cache runnables run, the
   * `permissions` its controllers and other runnables declare, create/patch of Events when it has
   * event recorders, and get/create/update of its Lease with leader election. Resources without a
   * plural or scope are resolved through the client's discovery. Print them with `rbacManifest`.
   */
  rbac(): Promise<RbacRules>;
  /**
   * The webhooks this manager serves (of every webhook server added to it), for their manifests:
   * `webhookManifest(mgr.webhooks(), …)` of `rxkube/webhook`. Serving them needs no RBAC rules.
   */
  webhooks(): readonly Webhook[];
}

/**
 * Creates a controller-runtime style manager.
 *
 * Start order (CR-13): HTTP servers (metrics, health probes) → webhook servers → caches, waiting until all synced →
 * runnables with `needLeaderElection: false` → once elected (at once without leader election) the
 * leader-election runnables, i.e. controllers. Stop order (CR-14): others → leader-election
 * runnables → caches → webhook servers → HTTP servers, all within one `gracefulShutdownTimeout`; the election is
 * cancelled last. Losing leadership stops everything without grace and rejects with
 * "leader election lost".
 *
 * @example
 * const mgr = manager({ health: { port: 8081 }, metrics: { port: 8080 } });
 * mgr.add(informers.runnable());
 * mgr.add(ctrl);
 * await mgr.start(setupSignalHandler().signal);
 */
export function manager(options: ManagerOptions = {}): Manager {
  const logger = options.logger ?? defaultLogger(options.logLevel === undefined ? {} : { level: options.logLevel });
  const scheduler = options.scheduler ?? asyncScheduler;
  const grace = gracefulShutdownTimeout(options);
  const cacheSyncTimeoutMs = cacheSyncTimeout(options);
  const metrics = managerMetrics(options.registry);
  if (options.processMetrics ?? true) processMetrics(metrics.registry);
  // rest_client_* for every client the manager or its caches use, until the manager stopped.
  const observed = new Map<KubeClient, () => void>();
  const observeClient = (client: KubeClient): void => {
    if (!observed.has(client)) observed.set(client, client.connection.observeRequests(metrics.restClient));
  };
  if (options.client !== undefined) observeClient(options.client);
  const leConfig = options.leaderElection ? resolveManagerLeaderElection(options.leaderElection) : undefined;
  const getClient = lazyClient(options, observeClient);
  if (options.leaderElection && !options.leaderElection.elector && !options.client && !options.kubeConfig) {
    throw new ManagerConfigError('leader election needs `leaderElection.elector`, `client` or `kubeConfig`');
  }
  const election: CandidacyOptions | undefined = leConfig && {
    config: leConfig,
    registry: metrics.registry,
    createElector: (config) => {
      const factory = options.leaderElection?.elector ?? leaseLeadership(kubeClientLeaseApi(getClient()), {
          scheduler,
          logger: logger.child({ component: 'leader-election' }),
          // The Lease's own events ("stopped leading") are written after the loss too, as in client-go.
          eventRecorder: newEventRecorder,
        });
      return factory(config);
    },
  };
  const caches = new CacheMonitor({
    logger: logger.child({ component: 'cache' }),
    metrics,
    scheduler,
    observeClient,
    ...(options.watchFailureThresholdMs === undefined ? {} : { watchFailureThresholdMs: options.watchFailureThresholdMs }),
  });
  // The readiness checks read the run's caches group, created just below.
  const probes = new ProbeServers(
    options,
    metrics,
    (): readonly string[] => [...run.cacheSyncProblems(), ...caches.waiting().map(describeWaiting)],
    (): readonly string[] => caches.failing().map(describeFailing),
  );
  const run = new ManagerRun({
    logger,
    scheduler,
    gracefulShutdownTimeoutMs: grace,
    probeServers: probes.servers,
    election,
    cacheSyncTimeoutMs,
    caches,
    catchUncaughtErrors: options.catchUncaughtErrors ?? true,
    onStopped: () => {
      for (const stop of observed.values()) stop();
      observed.clear();
    },
  });
  const addCheck = (kind: 'healthz' | 'readyz', name: string, check: HealthCheck): void => {
    if (run.phase !== 'new') throw new CheckerAfterStartError();
    probes.addCheck(kind, name, check);
  };
  const recorders: EventRecorder[] = [];
  const newEventRecorder = (component: string): EventRecorder => {
    const recorder = eventRecorder({
      api: clientEventsApi(getClient()),
      source: { component },
      scheduler,
      logger: logger.child({ component }),
      metrics: eventRecorderMetrics(metrics.registry),
    });
    run.addRecorder(recorder);
    recorders.push(recorder);
    return recorder;
  };
  // Nothing writes after it has lost the right to: with leader election, every recorder handed out
  // is fenced by leadership (controllers fence `ctx.recorder` by their own signal on top).
  const getEventRecorder = (component: string): EventRecorder =>
    leConfig === undefined ? newEventRecorder(component) : fencedRecorder(newEventRecorder(component), run.leadershipFence);
  const hasClient = (): boolean => options.client !== undefined || options.kubeConfig !== undefined;
  const deps = managerDeps({ logger, registry: metrics.registry, client: () => (hasClient() ? getClient() : undefined), getEventRecorder, monitor: caches });
  const added: Runnable[] = [];
  const controllerNames = new Set<string>();
  const managerLabel = leConfig === undefined ? 'manager' : `manager ${leConfig.namespace}/${leConfig.id}`;

  return {
    metrics,
    logger,
    scheduler,
    get client() {
      return getClient();
    },
    leaderElection: leConfig,
    getEventRecorder,
    add: (runnable) => {
      if (run.stopEngaged) throw new StopEngagedError();
      const r = toRunnable(runnable);
      const controllerName = r.controllerName;
      if (controllerName !== undefined) {
        if (controllerNames.has(controllerName)) throw new DuplicateControllerNameError(controllerName, managerLabel);
        controllerNames.add(controllerName);
      }
      r.inject?.(deps(r.name ?? 'runnable'));
      added.push(r);
      run.add(r);
      if (typeof r.livenessProblems === 'function') probes.addLivenessSource(() => r.livenessProblems?.() ?? []);
      if (isWebhookServer(r)) {
        // controller-runtime users add `StartedChecker` by hand; here a webhook server brings its checks.
        probes.addCheck('healthz', 'webhook', () => r.startedCheck());
        probes.addCheck('readyz', 'webhook', () => r.startedCheck());
      }
    },
    rbac: () =>
      managerPermissions({
        runnables: added,
        recorders: recorders.length,
        leaderElection: leConfig !== undefined && options.leaderElection?.elector === undefined ? leConfig : undefined,
        resolve: hasClient() ? (ref) => getClient().resolve(ref) : undefined,
      }),
    webhooks: () => added.flatMap((r) => (isWebhookServer(r) ? r.webhooks : [])),
    addHealthzCheck: (name, check) => addCheck('healthz', name, check),
    addReadyzCheck: (name, check) => addCheck('readyz', name, check),
    start: (signal) => run.start(signal),
    elected: () => run.elected,
    healthAddress: () => probes.health?.listening ?? Promise.reject(new Error('health probes are not enabled')),
    metricsAddress: () => probes.metrics?.listening ?? Promise.reject(new Error('metrics serving is not enabled')),
  };
}

function isWebhookServer(r: Runnable): r is Runnable & Pick<WebhookServer, 'startedCheck' | 'webhooks'> {
  const w = r as { startedCheck?: unknown; webhooks?: unknown };
  return r.isWebhookServer === true && typeof w.startedCheck === 'function' && Array.isArray(w.webhooks);
}

function gracefulShutdownTimeout(options: ManagerOptions): number {
  const grace = options.gracefulShutdownTimeoutMs ?? 30_000;
  if (typeof grace !== 'number' || Number.isNaN(grace)) {
    throw new ManagerConfigError(`gracefulShutdownTimeoutMs must be a number of milliseconds, got ${String(grace)}`);
  }
  return grace;
}

function cacheSyncTimeout(options: ManagerOptions): number {
  const ms = options.cacheSyncTimeoutMs ?? 120_000;
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0) {
    throw new ManagerConfigError(`cacheSyncTimeoutMs must be a number of milliseconds ≥ 0, got ${String(ms)}`);
  }
  return ms;
}

/** The manager's client: `client`, else built from `kubeConfig` on first use (and handed to `created`). */
function lazyClient(options: ManagerOptions, created: (client: KubeClient) => void): () => KubeClient {
  let client: KubeClient | undefined = options.client;
  return () => {
    if (client === undefined) {
      if (options.kubeConfig === undefined) {
        throw new ManagerConfigError('the manager has no client: pass `client` or `kubeConfig`');
      }
      client = KubeClient.fromKubeConfig(options.kubeConfig);
      created(client);
    }
    return client;
  };
}
