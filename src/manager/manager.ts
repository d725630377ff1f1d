import type { AddressInfo } from 'node:net';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
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
import type { HealthCheck } from './healthz-handler.js';
import type { ManagerLeaderElectionConfig, ManagerLeaderElectionOptions } from './leader-election-options.js';
import { resolveManagerLeaderElection } from './leader-election-options.js';
import { kubeClientLeaseApi } from '../leader-election/kube-client-lease-api.js';
import { leaseLeadership } from './lease-leadership.js';
import { CheckerAfterStartError, ManagerConfigError } from './manager-errors.js';
import type { RunnableLike } from '../api/runnable.js';
import type { CandidacyOptions } from './manager-candidacy.js';
import { ManagerRun } from './manager-run.js';
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
  const grace = gracefulShutdownTimeout(options);
  const metrics = managerMetrics(options.registry);
  const leConfig = options.leaderElection ? resolveManagerLeaderElection(options.leaderElection) : undefined;
  const getClient = lazyClient(options);
  if (options.leaderElection && !options.leaderElection.elector && !options.client && !options.kubeConfig) {
    throw new ManagerConfigError('leader election needs `leaderElection.elector`, `client` or `kubeConfig`');
  }
  const election: CandidacyOptions | undefined = leConfig && {
    config: leConfig,
    registry: metrics.registry,
    createElector: (config) => {
      const factory = options.leaderElection?.elector ?? leaseLeadership(kubeClientLeaseApi(getClient()), { scheduler });
      return factory(config);
    },
  };
  // The readiness check reads the run's caches group, created just below.
  const probes = new ProbeServers(options, metrics, (): boolean => run.cachesSynced);
  const run = new ManagerRun({ logger, scheduler, gracefulShutdownTimeoutMs: grace, probeServers: probes.servers, election });
  const addCheck = (kind: 'healthz' | 'readyz', name: string, check: HealthCheck): void => {
    if (run.phase !== 'new') throw new CheckerAfterStartError();
    probes.addCheck(kind, name, check);
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
      run.addRecorder(recorder);
      return recorder;
    },
    add: (runnable) => run.add(runnable),
    addHealthzCheck: (name, check) => addCheck('healthz', name, check),
    addReadyzCheck: (name, check) => addCheck('readyz', name, check),
    start: (signal) => run.start(signal),
    elected: () => run.elected,
    healthAddress: () => probes.health?.listening ?? Promise.reject(new Error('health probes are not enabled')),
    metricsAddress: () => probes.metrics?.listening ?? Promise.reject(new Error('metrics serving is not enabled')),
  };
}

function gracefulShutdownTimeout(options: ManagerOptions): number {
  const grace = options.gracefulShutdownTimeoutMs ?? 30_000;
  if (typeof grace !== 'number' || Number.isNaN(grace)) {
    throw new ManagerConfigError(`gracefulShutdownTimeoutMs must be a number of milliseconds, got ${String(grace)}`);
  }
  return grace;
}

/** The manager's client: `client`, else built from `kubeConfig` on first use. */
function lazyClient(options: ManagerOptions): () => KubeClient {
  let client: KubeClient | undefined = options.client;
  return () => {
    if (client === undefined) {
      if (options.kubeConfig === undefined) {
        throw new ManagerConfigError('the manager has no client: pass `client` or `kubeConfig`');
      }
      client = KubeClient.fromKubeConfig(options.kubeConfig);
    }
    return client;
  };
}
