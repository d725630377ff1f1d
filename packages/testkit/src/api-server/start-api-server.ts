import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeConfigLike } from 'rxkube';
import { ApiServerConfigError } from './server-errors.js';
import { createApiCore, type DirectApi } from './api-core.js';
import type { Faults } from './faults.js';
import { kubeConfigObject, kubeconfigYaml } from './kubeconfig.js';
import type { RequestLog } from './request-log.js';
import type { RbacOptions } from './rbac.js';
import { KubeClient } from 'rxkube';
import { startControllerManager, type ControllerManagerOptions, type RunningControllerManager } from '@rxkube/controller-manager';
import { embeddedServerTlsMaterial } from './tls-certificate.js';
import { corsPolicy, type CorsOptions } from './cors.js';
import { staticFileServer, type StaticFilesOptions } from './static-files.js';
import type { SchedulerLike } from 'rxjs';
import type { WebhookServiceRef } from './admission/webhooks/webhook-client.js';
import { isKubernetesVersion, KUBERNETES_VERSIONS, type KubernetesVersion } from './kubernetes-version.js';

/** Options of {@link startApiServer}. */
export interface ApiServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Loopback address to bind: `127.0.0.1` (default), `::1` or `localhost`. Other hosts are refused. */
  readonly host?: string;
  /** Require `Authorization: Bearer <token>` (401 otherwise). `true` generates a random token. */
  readonly token?: string | true;
  /**
   * Serve HTTPS with a CA and certificate generated at the first such start in the process (and
   * reused by later ones); the CA goes into the kubeconfig.
   */
  readonly tls?: boolean;
  /** How many changes the history keeps (watch from / exact list at older versions → 410). Default 100000. */
  readonly historyWindow?: number;
  /** Interval of BOOKMARK events on watches with `allowWatchBookmarks=true`. Default 1000 ms. */
  readonly bookmarkIntervalMs?: number;
  /** Largest accepted request body; larger gives 413. Default 3 MiB (kube-apiserver's limit). */
  readonly maxBodyBytes?: number;
  /** Watch timeout when the client sends no `timeoutSeconds`; default none. */
  readonly defaultWatchTimeoutSeconds?: number;
  /** Refuse namespaced creates in a namespace that does not exist (404), as kube-apiserver. Default true. */
  readonly requireNamespace?: boolean;
  /**
   * Defaulting and validation of the built-in kinds as kube-apiserver 1.20 (pod, workload, service,
   * secret… defaults; 422 Invalid with field causes; immutable fields; fields the 1.20 schema does
   * not know dropped). Default true, so the server accepts and rejects what a cluster does.
   * `false` is lenient mode: built-in objects are stored as sent (only names are validated), so
   * minimal fixtures (a pod without containers) are accepted; the `rxkube-apiserver` command line
   * turns it off with `--lenient`.
   */
  readonly strict?: boolean;
  /** Namespaces created at start. Default `default`, `kube-system`, `kube-public`, `kube-node-lease`. */
  readonly namespaces?: readonly string[];
  /** How many request records `requests` keeps (the newest). Default 200000. */
  readonly requestLogLimit?: number;
  /**
   * Page lists at `resourceVersion=0` by `limit`. Default false: as kube-apiserver (1.20) serves
   * them from its watch cache, such a list comes whole in one response and `limit` is ignored.
   * Benchmarks that measure paged lists turn this on.
   */
  readonly pageResourceVersionZeroLists?: boolean;
  /**
   * Run rxkube-controller-manager against the server (garbage collector, namespace, Deployment
   * and ReplicaSet controllers): `true`, or options (e.g. `{ standInNodes: 3 }` for a stand-in
   * scheduler and kubelets that make pods Running and Ready). Default off: like a bare
   * kube-apiserver, the server alone runs no controllers.
   */
  readonly controllers?: boolean | EmbeddedControllerOptions;
  /**
   * RBAC authorization (off by default): bearer tokens mapped to users and groups, whose requests
   * are allowed by Roles, ClusterRoles and their bindings (`rbac.authorization.k8s.io/v1`), 403
   * otherwise; the server's `token` stays an admin (`system:masters`).
   */
  readonly rbac?: RbacOptions;
  /**
   * Answer cross-origin requests from browser pages of these origins (off by default): CORS
   * headers on their responses, preflights answered before authentication. See {@link CorsOptions}.
   */
  readonly cors?: CorsOptions;
  /**
   * Serve the files of a directory under a path prefix (`/ui/` by default), without
   * authentication, so a page and the API it calls share one origin. See {@link StaticFilesOptions}.
   */
  readonly staticFiles?: StaticFilesOptions;
  /**
   * How the server reaches admission webhooks (MutatingWebhookConfiguration,
   * ValidatingWebhookConfiguration): `resolveService` maps a webhook's `clientConfig.service` to
   * a base URL (kube-apiserver would dial the service's cluster IP, which the embedded server
   * cannot); `scheduler` runs the call timeouts (`timeoutSeconds`). Webhooks with a
   * `clientConfig.url` need nothing here.
   */
  readonly admissionWebhooks?: AdmissionWebhookOptions;
  /**
   * The Kubernetes version the server emulates: `'1.34'` (default) or `'1.20'`. It decides what
   * `/version` reports, which built-in group versions discovery and OpenAPI list (1.34 no longer
   * serves the betas removed in 1.22–1.26 and serves their GA successors, e.g. batch/v1
   * CronJob, policy/v1 PodDisruptionBudget, autoscaling/v2) and whether watches serve streaming
   * lists (`sendInitialEvents`, from 1.27; 1.20 answers 422 to `resourceVersionMatch` on a
   * watch). Defaulting and validation stay 1.20's in both. Tests that compare the server with
   * a real kube-apiserver 1.20 select `'1.20'`. See docs/embedded-api-server.md.
   */
  readonly kubernetesVersion?: KubernetesVersion;
}

/** Options of {@link ApiServerOptions.admissionWebhooks}. */
export interface AdmissionWebhookOptions {
  /** Base URL (e.g. `https://127.0.0.1:9443`) for a webhook's service; undefined: unreachable. */
  readonly resolveService?: (service: WebhookServiceRef) => string | undefined;
  /** Scheduler of webhook call timeouts (default rxjs `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
}

/** Options of the controller manager {@link ApiServerOptions.controllers} starts. */
export type EmbeddedControllerOptions = Omit<ControllerManagerOptions, 'client'>;

/**
 * The embedded server's kubeconfig. At run time a `@kubernetes/client-node` `KubeConfig`; typed
 * as the members rxkube uses plus `makeApiClient`, so rxkube's declarations do not pull in
 * client-node's. Where a client-node API wants its own `KubeConfig` type, load one from
 * {@link ApiServer.kubeconfigYaml} (`kc.loadFromString(server.kubeconfigYaml)`).
 */
export interface ApiServerKubeConfig extends KubeConfigLike {
  /** client-node's `makeApiClient`: `server.kubeConfig.makeApiClient(CoreV1Api)`. */
  makeApiClient<T>(apiClientType: new (configuration: never) => T): T;
}

/** A running embedded API server; its {@link DirectApi} methods reach the store without HTTP. */
export interface ApiServer extends DirectApi {
  /** Base URL, e.g. `http://127.0.0.1:34567`. */
  readonly url: string;
  readonly port: number;
  /** The bearer token clients must send, when auth is on. */
  readonly token: string | undefined;
  /** PEM of the CA that signed the server certificate (TLS only). */
  readonly caPem: string | undefined;
  /** A KubeConfig for @kubernetes/client-node pointing at this server (token and CA included). */
  readonly kubeConfig: ApiServerKubeConfig;
  /** The same kubeconfig as YAML (for kubectl). */
  readonly kubeconfigYaml: string;
  /** Writes the kubeconfig YAML to `path`. */
  writeKubeconfig(path: string): Promise<void>;
  /** Fault injection. */
  readonly faults: Faults;
  /** Every request received (method, path, query, watch or not). */
  readonly requests: RequestLog;
  /** Number of open watch connections, of one resource (`/pods`, `apps/deployments`) or all. */
  openWatches(resourceId?: string): number;
  /** Stops the server: closes every connection. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Starts an in-process Kubernetes API server on loopback that speaks kube-apiserver's HTTP
 * protocol (CRUD, lists with paging and selectors, watches with bookmarks, Status errors), for
 * tests, examples and benchmarks.
 *
 * @example
 * const server = await startApiServer({ token: true, tls: true });
 * const api = server.kubeConfig.makeApiClient(CoreV1Api);
 * // ...
 * await server.close();
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new ApiServerConfigError(`startApiServer binds loopback only; got host ${host}`, { option: 'host' });
  if (options.kubernetesVersion !== undefined && !isKubernetesVersion(options.kubernetesVersion)) {
    throw new ApiServerConfigError(`startApiServer emulates Kubernetes ${KUBERNETES_VERSIONS.join(' or ')}; got kubernetesVersion ${String(options.kubernetesVersion)}`, { option: 'kubernetesVersion' });
  }
  // With RBAC on, the kubeconfig's user is an admin with a token of its own.
  const token = options.token === true || (options.token === undefined && options.rbac !== undefined) ? randomBytes(16).toString('hex') : options.token;
  const tls = options.tls === true ? await embeddedServerTlsMaterial() : undefined;

  const sockets = new Set<Socket>();
  let port = options.port ?? 0;

  const restart = async (downMs: number): Promise<void> => {
    for (const c of core.hub.connections()) c.destroy();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
    if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
    await listen(server, port, host);
  };
  const cors = options.cors === undefined ? undefined : corsPolicy(options.cors);
  const files = options.staticFiles === undefined ? undefined : await staticFileServer(options.staticFiles);
  const core = createApiCore({ ...options, token }, restart);
  const { hub, handler, direct } = core;
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (cors !== undefined && cors(req, res) === 'answered') return;
    if (files !== undefined && files.owns((req.url ?? '/').split(/[?#]/, 1)[0] ?? '/')) return files.serve(req, res);
    handler.handle(req, res);
  };
  const server: Server = tls !== undefined ? createHttpsServer({ cert: tls.cert, key: tls.key }, onRequest) : createHttpServer(onRequest);
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => s.setNoDelay(true));

  port = await listen(server, port, host);
  const url = `${tls !== undefined ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kcParams = { server: url, token, ca: tls?.ca };
  const yaml = kubeconfigYaml(kcParams);

  let kubeConfig: ApiServerKubeConfig | undefined;
  let controllers: RunningControllerManager | undefined;
  let controllerClient: KubeClient | undefined;
  if (options.controllers !== undefined && options.controllers !== false) {
    controllerClient = KubeClient.fromKubeConfig(kubeConfigObject(kcParams) as KubeConfigLike);
    controllers = await startControllerManager({ ...(options.controllers === true ? {} : options.controllers), client: controllerClient });
  }

  return {
    url,
    port,
    token,
    caPem: tls?.ca,
    // A client-node KubeConfig (made on first use: client-node loads then); its generic `makeApiClient` is the one ApiServerKubeConfig names.
    get kubeConfig() {
      kubeConfig ??= kubeConfigObject(kcParams) as KubeConfigLike as ApiServerKubeConfig;
      return kubeConfig;
    },
    kubeconfigYaml: yaml,
    writeKubeconfig: (path) => writeFile(path, yaml, { mode: 0o600 }),
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
    openWatches: (id) => hub.connections(id).length,
    async close() {
      await controllers?.stop();
      controllerClient?.close();
      for (const c of hub.connections()) c.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
