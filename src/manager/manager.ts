import type { AddressInfo } from 'node:net';
import type { SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, timer } from 'rxjs';
import type { Registry } from 'prom-client';
import { KubeClient } from '../client/kube-client.js';
import type { KubeConfigLike } from '../client/kube-config-like.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { eventRecorder } from '../events/event-recorder.js';
import { clientEventsApi } from '../events/client-events-api.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import type { ManagerMetrics } from '../metrics/metrics-registry.js';
import { managerMetrics } from '../metrics/metrics-registry.js';
import { leaderStatusMetric } from '../metrics/leader-election-metrics.js';
import type { HealthCheck } from './healthz-handler.js';
import { httpServerRunnable } from './http-server.js';
import type { HttpServerRunnable } from './http-server.js';
import type { Leadership, ManagerLeaderElectionConfig, ManagerLeaderElectionOptions } from './leader-election-options.js';
import { resolveManagerLeaderElection } from './leader-election-options.js';
import { kubeClientLeaseApi } from '../leader-election/kube-client-lease-api.js';
import { leaseLeadership } from './lease-leadership.js';
import {
  CheckerAfterStartError,
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerConfigError,
  StopEngagedError,
} from './manager-errors.js';
import { healthzRoute, metricsRoute, routes } from './probe-routes.js';
import type { RunnableLike } from '../api/runnable.js';
import { toRunnable } from '../api/runnable.js';
import { classifyRunnable, type RunnableGroupName } from './classify-runnable.js';
import { RunnableGroup } from './runnable-group.js';

/** Where and how the health-probe server listens. */
export interface HealthServerOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Default `/readyz`. */
  readonly readinessEndpoint?: string;
  /** Default `/healthz`. */
  readonly livenessEndpoint?: string;
  /** Add the built-in readiness check `cache-sync` (fails until every cache synced). Default true. */
  readonly cacheSyncCheck?: boolean;
}

/** Where the metrics server listens and which registry it serves. */
export interface MetricsServerOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Default `/metrics`. */
  readonly path?: string;
}

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
  readonly logger?: Logger;
  /** Scheduler for the shutdown timer. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** The manager (see {@link manager}). */
export interface Manager {
  /** Adds a runnable to its group (CR-12); after start it starts at once. Throws during stop. */
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
   * writing through `client`; shut down when the manager has stopped.
   */
  getEventRecorder(component: string): EventRecorder;
  /** The manager's client (from `client` or `kubeConfig`); throws when neither was given. */
  readonly client: KubeClient;
  readonly metrics: ManagerMetrics;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  /** The resolved leader-election config, if enabled. */
  readonly leaderElection: ManagerLeaderElectionConfig | undefined;
}

const STOP_ORDER: readonly (readonly RunnableGroupName[])[] = [
  ['others'],
  ['leaderElection'],
  ['caches'],
  ['httpServers'],
];

/**
 * Creates a controller-runtime style manager.
 *
 * Start order (CR-13): HTTP servers (metrics, health probes) → caches, waiting until all synced →
 * runnables with `needLeaderElection: false` → once elected (at once without leader election) the
 * leader-election runnables, i.e. controllers. Stop order (CR-14): others → leader-election
 * runnables → caches → HTTP servers, all within one `gracefulShutdownTimeout`; the election is
 * cancelled last. Losing leadership stops everything without grace and rejects with
 * "leader election lost".
 *
 * @example
 * const mgr = manager({ health: { port: 8081 }, metrics: { port: 8080 } });
 * mgr.add(informerCache);
 * mgr.add(controller);
 * await mgr.start(setupSignalHandler().signal);
 */
export function manager(options: ManagerOptions = {}): Manager {
  const logger = options.logger ?? noopLogger;
  const scheduler = options.scheduler ?? asyncScheduler;
  const grace = options.gracefulShutdownTimeoutMs ?? 30_000;
  if (typeof grace !== 'number' || Number.isNaN(grace)) {
    throw new ManagerConfigError(`gracefulShutdownTimeoutMs must be a number of milliseconds, got ${String(grace)}`);
  }
  const metrics = managerMetrics(options.registry);
  const leConfig = options.leaderElection ? resolveManagerLeaderElection(options.leaderElection) : undefined;
  let client: KubeClient | undefined = options.client;
  const getClient = (): KubeClient => {
    if (client === undefined) {
      if (options.kubeConfig === undefined) {
        throw new ManagerConfigError('the manager has no client: pass `client` or `kubeConfig`');
      }
      client = KubeClient.fromKubeConfig(options.kubeConfig);
    }
    return client;
  };
  if (options.leaderElection && !options.leaderElection.elector && !options.client && !options.kubeConfig) {
    throw new ManagerConfigError('leader election needs `leaderElection.elector`, `client` or `kubeConfig`');
  }
  const recorders: EventRecorder[] = [];
  const healthzChecks = new Map<string, HealthCheck>();
  const readyzChecks = new Map<string, HealthCheck>();

  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  let firstError: unknown;
  let hasError = false;
  let leaderLost = false;
  let stopFlag = false;
  let resolveStop: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (resolveStop = resolve));
  const wake = (): void => {
    stopFlag = true;
    resolveStop();
  };

  let resolveElected!: () => void;
  const electedPromise = new Promise<void>((resolve) => (resolveElected = resolve));

  const reportError = (err: unknown): void => {
    if (state === 'stopping' || state === 'stopped') {
      logger.error('error received after stop sequence was engaged', { err });
      return;
    }
    if (!hasError) {
      hasError = true;
      firstError = err;
    }
    wake();
  };

  const groups: Record<RunnableGroupName, RunnableGroup> = {
    httpServers: new RunnableGroup('httpServers', reportError, logger),
    caches: new RunnableGroup('caches', reportError, logger),
    others: new RunnableGroup('others', reportError, logger),
    leaderElection: new RunnableGroup('leaderElection', reportError, logger),
  };

  let healthServer: HttpServerRunnable | undefined;
  let metricsServer: HttpServerRunnable | undefined;
  if (options.health) {
    const h = options.health;
    if (h.cacheSyncCheck ?? true) {
      readyzChecks.set('cache-sync', () => {
        if (!groups.caches.isReady) throw new Error('caches are not synced');
      });
    }
    healthServer = httpServerRunnable({
      name: 'health probes',
      port: h.port,
      ...(h.host === undefined ? {} : { host: h.host }),
      handler: routes([
        healthzRoute(h.readinessEndpoint ?? '/readyz', readyzChecks),
        healthzRoute(h.livenessEndpoint ?? '/healthz', healthzChecks),
      ]),
    });
  }
  if (options.metrics) {
    const m = options.metrics;
    metricsServer = httpServerRunnable({
      name: 'metrics',
      port: m.port,
      ...(m.host === undefined ? {} : { host: m.host }),
      handler: routes([metricsRoute(m.path ?? '/metrics', metrics.text, metrics.registry.contentType)]),
    });
  }

  const addCheck = (target: Map<string, HealthCheck>, name: string, check: HealthCheck) => {
    if (state !== 'new') throw new CheckerAfterStartError();
    if (!name) throw new TypeError('a health check needs a name');
    target.set(name, check);
  };

  let leaderSub: Subscription | undefined;
  let clearLeaderStatus: () => void = () => undefined;
  const startLeaderElection = () => {
    if (!leConfig || !options.leaderElection) {
      void groups.leaderElection.start();
      resolveElected();
      return;
    }
    const setStatus = leaderStatusMetric(metrics.registry, leConfig.id);
    clearLeaderStatus = () => setStatus(false);
    let elector: Leadership;
    try {
      const factory = options.leaderElection.elector ?? leaseLeadership(kubeClientLeaseApi(getClient()), { scheduler });
      elector = factory(leConfig);
    } catch (err) {
      reportError(err);
      return;
    }
    let leading = false;
    const lost = (cause?: unknown) => {
      setStatus(false);
      if (state !== 'running') return;
      leaderLost = true;
      logger.error('leader election lost', { lease: `${leConfig.namespace}/${leConfig.id}` });
      reportError(new LeaderElectionLostError(cause === undefined ? undefined : { cause }));
    };
    leaderSub = elector.leading$.subscribe({
      next: (isLeader) => {
        if (isLeader && !leading) {
          leading = true;
          setStatus(true);
          if (state !== 'running' || stopFlag) return;
          logger.info('became leader', { lease: `${leConfig.namespace}/${leConfig.id}` });
          resolveElected();
          void groups.leaderElection.start();
        } else if (!isLeader && leading) {
          leading = false;
          lost();
        }
      },
      error: (err: unknown) => lost(err),
      complete: () => lost(),
    });
  };

  const deadline = (): Promise<void> => {
    const ms = leaderLost ? 0 : grace;
    if (ms < 0) return new Promise<void>(() => undefined);
    return new Promise<void>((resolve) => {
      deadlineSub = timer(ms, scheduler).subscribe(() => resolve());
    });
  };
  let deadlineSub: Subscription | undefined;

  const stopProcedure = async (): Promise<unknown> => {
    state = 'stopping';
    const effectiveGrace = leaderLost ? 0 : grace;
    logger.info('stopping and waiting for runnables', { gracefulShutdownTimeoutMs: effectiveGrace });
    const expired = deadline();
    let allEnded = true;
    for (const names of STOP_ORDER) {
      const results = await Promise.all(names.map((n) => groups[n].stop(expired)));
      if (results.includes(false)) allEnded = false;
    }
    // Events recorded by the stopped runnables are written before the recorders shut down,
    // within what is left of the grace period.
    await Promise.race([Promise.all(recorders.map((r) => r.flush())), expired]);
    deadlineSub?.unsubscribe();
    leaderSub?.unsubscribe();
    clearLeaderStatus();
    for (const r of recorders) r.shutdown();
    state = 'stopped';
    if (!allEnded && effectiveGrace > 0) return new GracefulShutdownTimeoutError(effectiveGrace);
    return undefined;
  };

  const run = async (signal: AbortSignal | undefined): Promise<void> => {
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) wake();
    const until = async (p: Promise<void>) => {
      await Promise.race([p, stopRequested]);
    };
    try {
      if (healthServer) groups.httpServers.add(healthServer);
      if (metricsServer) groups.httpServers.add(metricsServer);
      await until(groups.httpServers.start());
      if (!stopFlag) await until(groups.caches.start());
      if (!stopFlag) await until(groups.others.start());
      if (!stopFlag) startLeaderElection();
      await stopRequested;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const stopError = await stopProcedure();
    if (hasError && stopError !== undefined) {
      throw new AggregateError([firstError, stopError], `${messageOf(firstError)}, ${messageOf(stopError)}`);
    }
    if (hasError) throw firstError;
    if (stopError !== undefined) throw stopError;
  };

  return {
    metrics,
    logger,
    scheduler,
    get client() {
      return getClient();
    },
    leaderElection: leConfig,
    getEventRecorder(component) {
      const recorder = eventRecorder({
        api: clientEventsApi(getClient()),
        source: { component },
        scheduler,
        logger: logger.child({ component }),
      });
      recorders.push(recorder);
      return recorder;
    },
    add(runnable) {
      if (state === 'stopping' || state === 'stopped') throw new StopEngagedError();
      const r = toRunnable(runnable);
      groups[classifyRunnable(r)].add(r);
    },
    addHealthzCheck: (name, check) => addCheck(healthzChecks, name, check),
    addReadyzCheck: (name, check) => addCheck(readyzChecks, name, check),
    start(signal) {
      if (state !== 'new') return Promise.reject(new ManagerAlreadyStartedError());
      state = 'running';
      return run(signal);
    },
    elected: () => electedPromise,
    healthAddress: () => healthServer?.listening ?? Promise.reject(new Error('health probes are not enabled')),
    metricsAddress: () => metricsServer?.listening ?? Promise.reject(new Error('metrics serving is not enabled')),
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
