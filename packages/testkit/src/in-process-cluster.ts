import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { KubeClient } from 'rxkube';
import type { RetryPolicy } from 'rxkube';
import { InformerFactory, type InformerFactoryOptions } from 'rxkube';
import { type ApiCore, createApiCore, type DirectApi } from './api-server/api-core.js';
import type { KubernetesVersion } from './api-server/kubernetes-version.js';
import type { Faults } from './api-server/faults.js';
import type { RequestLog } from './api-server/request-log.js';
import { InProcessConnection } from './in-process-connection.js';

/** Options of {@link inProcessCluster}. Durations in ms. */
export interface InProcessClusterOptions {
  /** Timers of the client (retries), the watches (latency, timeouts) and the informers; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Delay between a write and its watch event (the cache lag of a real cluster); default 0 (the next turn of the scheduler). */
  readonly watchLatencyMs?: number;
  /** The client's retry policy; default the client's, without jitter (so runs repeat to the frame). */
  readonly retry?: RetryPolicy | false;
  /** Namespaces created at start; default `default`, `kube-system`, `kube-public`, `kube-node-lease`. */
  readonly namespaces?: readonly string[];
  /** How many changes the history keeps; default 100 000. */
  readonly historyWindow?: number;
  /** Refuse namespaced creates in a namespace that does not exist; default true. */
  readonly requireNamespace?: boolean;
  /**
   * Defaulting and validation of the built-in kinds as kube-apiserver 1.20, as `startApiServer`'s
   * `strict` option: default true; `false` is lenient mode (built-in objects stored as sent).
   */
  readonly strict?: boolean;
  /**
   * The Kubernetes version to emulate, as `startApiServer`'s `kubernetesVersion`: `'1.34'`
   * (default: streaming lists served) or `'1.20'` (a watch with `resourceVersionMatch` is 422).
   */
  readonly kubernetesVersion?: KubernetesVersion;
}

/** An embedded API server in this process, with a client and informers wired to it without HTTP. */
export interface InProcessCluster extends DirectApi {
  /** A client whose requests go straight to the server (retries and watches on the cluster's scheduler). */
  readonly client: KubeClient;
  readonly scheduler: SchedulerLike;
  /** Fault injection (failures and latency of requests; latency waits in real time). */
  readonly faults: Faults;
  /** Every request received. */
  readonly requests: RequestLog;
  /** A new informer factory over {@link client}, on the cluster's scheduler. */
  informers(options?: InformerFactoryOptions): InformerFactory;
  /** Watches open now. */
  openWatches(): number;
  /** Ends every open watch (clients see the stream end, as after a server restart). */
  endWatches(): number;
  /** Ends the watches; the cluster can be dropped. */
  close(): void;
}

/**
 * An embedded API server in this process, served without sockets: the client's requests go to
 * its request handler and its watches to its store, so everything above the connection
 * (`ObjectClient`, discovery, list/watch, informers, controllers) runs as against a real cluster,
 * but in microtasks and on `scheduler`: under a virtual clock, a controller whose reconcile is an
 * ordinary `async` function calling the client runs in virtual time (see {@link virtualTime}).
 *
 * @example
 * ```ts
 * const cluster = inProcessCluster({ scheduler });
 * cluster.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } }]);
 * const informers = cluster.informers();
 * const cms = await cluster.client.objects(resources.configMaps, 'default').list();
 * ```
 */
export function inProcessCluster(options: InProcessClusterOptions = {}): InProcessCluster {
  const scheduler = options.scheduler ?? asyncScheduler;
  const core: ApiCore = createApiCore(
    {
      ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
      ...(options.historyWindow === undefined ? {} : { historyWindow: options.historyWindow }),
      ...(options.requireNamespace === undefined ? {} : { requireNamespace: options.requireNamespace }),
      ...(options.strict === undefined ? {} : { strict: options.strict }),
      ...(options.kubernetesVersion === undefined ? {} : { kubernetesVersion: options.kubernetesVersion }),
    },
    async () => void connection.endWatches(),
  );
  const connection = new InProcessConnection(core, {
    scheduler,
    ...(options.watchLatencyMs === undefined ? {} : { watchLatencyMs: options.watchLatencyMs }),
    retry: options.retry ?? { jitter: 0 },
  });
  const client = new KubeClient(connection);
  const { direct } = core;
  return {
    client,
    scheduler,
    faults: core.faults,
    requests: core.requests,
    get resourceVersion() {
      return direct.resourceVersion;
    },
    seed: (objects) => direct.seed(objects),
    create: (o) => direct.create(o),
    update: (o) => direct.update(o),
    delete: (apiVersion, kind, name, namespace, opts) => direct.delete(apiVersion, kind, name, namespace, opts),
    get: (apiVersion, kind, name, namespace) => direct.get(apiVersion, kind, name, namespace),
    list: (apiVersion, kind, namespace) => direct.list(apiVersion, kind, namespace),
    informers: (factoryOptions = {}) => new InformerFactory(client, { scheduler, ...factoryOptions }),
    openWatches: () => connection.watchCount,
    endWatches: () => connection.endWatches(),
    close: () => connection.close(),
  };
}
