import type { ManagerMetrics } from '../metrics/metrics-registry.js';
import type { HealthCheck } from './healthz-handler.js';
import { httpServerRunnable, type HttpServerRunnable } from './http-server.js';
import { healthzRoute, metricsRoute, routes } from './probe-routes.js';

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
  /**
   * Add the built-in readiness check `informers`: fails while a synced informer's list/watch has
   * kept failing longer than the manager's `watchFailureThresholdMs`, naming it and why. Default true.
   */
  readonly informerFailureCheck?: boolean;
  /**
   * Add the built-in liveness check `reconciles` once a runnable offering `livenessProblems` (a
   * controller) is added: `/healthz` fails while any controller has a reconcile running longer
   * than its `stuckReconcileThresholdMs`, naming the controller, object and reconcile id. Default true.
   */
  readonly stuckReconcileCheck?: boolean;
  /**
   * Write `reason withheld` for a failed check in the aggregate listing, as controller-runtime
   * does. Default false: `/readyz` names each failed check and why (e.g. `[-]cache-sync failed:
   * informer Pod/default (server https://…): last error: …`). The single-check endpoints
   * (`/readyz/<name>`) always give the reason.
   */
  readonly withholdReasons?: boolean;
}

/** Where the metrics server listens and which registry it serves. */
export interface MetricsServerOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Default `/metrics`. */
  readonly path?: string;
}

/** Which probe servers a manager runs (the matching fields of `ManagerOptions`). */
export interface ProbeServerOptions {
  readonly health?: HealthServerOptions;
  readonly metrics?: MetricsServerOptions;
}

/**
 * The manager's own HTTP servers: health probes (`/healthz`, `/readyz` with their checks, CR-15)
 * and `/metrics`, each only when configured. The manager adds them to its HTTP-server group at
 * start.
 */
export class ProbeServers {
  private readonly healthzChecks = new Map<string, HealthCheck>();
  private readonly readyzChecks = new Map<string, HealthCheck>();
  /** The health-probe server, when `health` is given. */
  readonly health: HttpServerRunnable | undefined;
  private readonly livenessSources: (() => readonly string[])[] = [];
  /** The metrics server, when `metrics` is given. */
  readonly metrics: HttpServerRunnable | undefined;

  /**
   * `cacheSyncProblems` (empty when synced) backs the built-in readiness check `cache-sync`,
   * `informerFailures` (empty when every list/watch works, or fails for less than the threshold)
   * the check `informers`.
   */
  constructor(
    private readonly options: ProbeServerOptions,
    metrics: ManagerMetrics,
    cacheSyncProblems: () => readonly string[],
    informerFailures: () => readonly string[] = () => [],
  ) {
    this.health = options.health && this.healthServer(options.health, cacheSyncProblems, informerFailures);
    this.metrics = options.metrics && metricsServer(options.metrics, metrics);
  }

  /** The configured servers, health probes first. */
  get servers(): readonly HttpServerRunnable[] {
    return [this.health, this.metrics].filter((s): s is HttpServerRunnable => s !== undefined);
  }

  /**
   * Adds a source of liveness problems (a controller's stuck reconciles); the first one registers
   * the built-in liveness check `reconciles` (unless `health.stuckReconcileCheck` is false).
   */
  addLivenessSource(problems: () => readonly string[]): void {
    if (this.health === undefined || this.options.health?.stuckReconcileCheck === false) return;
    this.livenessSources.push(problems);
    if (this.healthzChecks.has('reconciles')) return;
    this.healthzChecks.set('reconciles', () => {
      const lines = this.livenessSources.flatMap((p) => p());
      if (lines.length > 0) throw new Error(`stuck reconciles: ${lines.join('; ')}`);
    });
  }

  /** Registers a liveness (`healthz`) or readiness (`readyz`) check. */
  addCheck(kind: 'healthz' | 'readyz', name: string, check: HealthCheck): void {
    if (!name) throw new TypeError('a health check needs a name');
    (kind === 'healthz' ? this.healthzChecks : this.readyzChecks).set(name, check);
  }

  private healthServer(h: HealthServerOptions, cacheSyncProblems: () => readonly string[], informerFailures: () => readonly string[]): HttpServerRunnable {
    if (h.cacheSyncCheck ?? true) {
      this.readyzChecks.set('cache-sync', () => {
        const problems = cacheSyncProblems();
        if (problems.length > 0) throw new Error(`caches are not synced: ${problems.join('; ')}`);
      });
    }
    if (h.informerFailureCheck ?? true) {
      this.readyzChecks.set('informers', () => {
        const failing = informerFailures();
        if (failing.length > 0) throw new Error(`informers are failing: ${failing.join('; ')}`);
      });
    }
    const reasons = { withholdReasons: h.withholdReasons ?? false };
    return httpServerRunnable({
      name: 'health probes',
      port: h.port,
      ...(h.host === undefined ? {} : { host: h.host }),
      handler: routes([
        healthzRoute(h.readinessEndpoint ?? '/readyz', this.readyzChecks, reasons),
        healthzRoute(h.livenessEndpoint ?? '/healthz', this.healthzChecks, reasons),
      ]),
    });
  }
}

function metricsServer(m: MetricsServerOptions, metrics: ManagerMetrics): HttpServerRunnable {
  return httpServerRunnable({
    name: 'metrics',
    port: m.port,
    ...(m.host === undefined ? {} : { host: m.host }),
    handler: routes([metricsRoute(m.path ?? '/metrics', metrics.text, metrics.registry.contentType)]),
  });
}
