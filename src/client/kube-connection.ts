import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client-node-module.js';
import { asyncScheduler, Observable, type SchedulerLike } from 'rxjs';
import { apiErrorFromResponse } from './api-error-from-response.js';
import { type ClientIdentity, identityOfUser, printableServer } from './api-request-context.js';
import { type CredentialPlan, credentialPlanFor } from './credential-plan.js';
import { checkCredentialFiles, checkCurrentContext, loadDefaultKubeConfig, loadInClusterConfig, loadKubeConfigFile } from './kubeconfig-load.js';
import { rememberSecret } from '../logging/known-secrets.js';
import { NetworkError } from './network-error.js';
import type { RequestObserver, RequestOutcome } from './request-outcome.js';
import { RequestTimeoutError, type RequestTimeoutPhase } from './request-timeout-error.js';
import { deadline, idleTimer, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS } from './request-deadline.js';
import { boundConnection } from './request-timeouts.js';
import { parseJsonBody } from './response-decode-error.js';
import type { KubeConfigLike } from './kube-config-like.js';
import type { ApiConnection } from './api-connection.js';
import { isWatchRequest, joinPath, type KubeRequest, methodOf, queryString, type RequestOptions, type StreamOptions } from './kube-request.js';
import { delayOn, type ResolvedRetryPolicy, resolveRetryPolicy, type RetryPolicy, retryDelayMs } from './retry-policy.js';

export type { KubeRequest, QueryParams, RequestOptions, StreamOptions } from './kube-request.js';
export { queryString } from './kube-request.js';

/** Options of {@link KubeConnection}. */
export interface KubeConnectionOptions {
  /** Clock used to turn a `Retry-After` date into seconds. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Retries of `request()` answered 429, 503 or 504 (with backoff, honouring `Retry-After`; a POST
   * only on 429). Default `DEFAULT_RETRY_POLICY` (5 attempts, 500 ms doubling, at most 30 s, jittered); `false` turns retries off. Streams
   * (watches) are never retried here.
   */
  readonly retry?: RetryPolicy | false;
  /**
   * Time to open a TCP connection to the server, in ms. Default 30 000 (client-go's dialer); 0: none.
   * A timeout fails the request with {@link RequestTimeoutError} (`phase: 'connect'`).
   */
  readonly connectTimeoutMs?: number;
  /** Time for the TLS handshake once connected, in ms. Default 10 000 (client-go's `TLSHandshakeTimeout`); 0: none. */
  readonly tlsHandshakeTimeoutMs?: number;
  /**
   * Deadline of every non-watch request, in ms: from sending it to the end of its answer (each
   * attempt, each page of a list). Default 60 000 (kube-apiserver's own `--request-timeout`); 0:
   * none. Overridden per call by `RequestOptions.timeoutMs` / `CallOptions.timeoutMs`. A request
   * that runs out fails with {@link RequestTimeoutError} (`phase: 'response'`). Streams: see
   * {@link StreamOptions}.
   */
  readonly requestTimeoutMs?: number;
  /**
   * Time an exec credential plugin may run, in ms, before it is killed (with the processes it
   * started) and the request fails with `ExecCredentialError`. Default 30 000; 0: none.
   */
  readonly execTimeoutMs?: number;
  /** Extra options for the keep-alive agent (e.g. `maxSockets`). TLS options come from the kubeconfig. */
  readonly agentOptions?: Omit<https.AgentOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>;
}

const USER_AGENT = `rxkube (node ${process.version})`;

/** TLS fields client-node's `applyToHTTPSOptions` may set, which the agent is built from. */
const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

interface Prepared {
  readonly headers: Record<string, string>;
  readonly agent: http.Agent;
  readonly auth: string | undefined;
  readonly secrets: readonly string[];
}

/**
 * An HTTP(S) connection to one cluster, configured by a client-node `KubeConfig`: bearer tokens,
 * client certificates, exec and OIDC auth providers (refreshed by client-node as they expire), CA
 * data or file, `tls-server-name` and `insecure-skip-tls-verify`, exactly as the current context
 * says.
 *
 * Every request asks client-node for fresh credentials (`applyToHTTPSOptions`), and all requests
 * share one keep-alive agent, rebuilt only if the TLS material itself changes (an exec plugin
 * rotating its client certificate). Credentials never appear in error messages: errors name the
 * method and path only, and server messages are scrubbed of the current token.
 */
export class KubeConnection implements ApiConnection {
  /** The server URL of the current context. */
  readonly server: URL;
  /** The namespace of the current context, if it names one. */
  readonly namespace: string | undefined;
  private readonly scheduler: SchedulerLike;
  private readonly retry: ResolvedRetryPolicy | undefined;
  private readonly connectTimeoutMs: number;
  private readonly tlsHandshakeTimeoutMs: number;
  /** The default deadline of non-watch requests (see {@link KubeConnectionOptions.requestTimeoutMs}). */
  readonly requestTimeoutMs: number;
  private readonly authConfig: KubeConfigLike;
  private readonly credentials: CredentialPlan | undefined;
  /** Who the kubeconfig says the client is (named in 401 errors; never a credential). */
  private readonly identity: ClientIdentity;
  private readonly agentOptions: https.AgentOptions;
  private agent: http.Agent | undefined;
  private agentKey = '';
  private closed = false;
  private readonly observers = new Set<RequestObserver>();

  constructor(
    readonly kubeConfig: KubeConfigLike,
    options: KubeConnectionOptions = {},
  ) {
    this.server = checkCurrentContext(kubeConfig);
    checkCredentialFiles(kubeConfig);
    const cluster = kubeConfig.getCurrentCluster() as NonNullable<ReturnType<KubeConfig['getCurrentCluster']>>;
    const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
    this.namespace = context?.namespace || undefined;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.retry = resolveRetryPolicy(options.retry);
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.tlsHandshakeTimeoutMs = options.tlsHandshakeTimeoutMs ?? DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.agentOptions = { keepAlive: true, keepAliveMsecs: 30_000, ...options.agentOptions };
    const user = kubeConfig.getCurrentUser();
    this.identity = identityOfUser(user);
    this.credentials = credentialPlanFor(user, this.scheduler, options.execTimeoutMs);
    // client-node refuses plain http:// unless skip-tls-verify is set; TLS settings mean nothing
    // without TLS, so for http:// servers credentials come from a copy that allows it. Token files
    // and exec plugins are rxkube's (see credential-plan.ts): the copy client-node sees has none.
    const plan = this.credentials?.replaces;
    if ((this.server.protocol === 'http:' && !cluster.skipTLSVerify) || plan !== undefined) {
      const copy = new (clientNode().KubeConfig)();
      const skipTLSVerify = this.server.protocol === 'http:' || cluster.skipTLSVerify;
      copy.loadFromOptions({
        clusters: kubeConfig.clusters.map((c) => (c.name === cluster.name ? { ...c, skipTLSVerify } : c)),
        users: kubeConfig.users.map((u) =>
          plan === undefined || u.name !== user?.name
            ? u
            : {
                ...u,
                ...(plan.token ? { token: undefined, tokenFile: undefined } : {}),
                ...(plan.exec ? { exec: undefined } : {}),
                ...(plan.authProvider ? { authProvider: undefined } : {}),
              },
        ),
        contexts: kubeConfig.contexts,
        currentContext: kubeConfig.currentContext,
      });
      this.authConfig = copy;
    } else {
      this.authConfig = kubeConfig;
    }
  }

  /** From a `KubeConfig` you built or loaded. */
  static fromKubeConfig(kubeConfig: KubeConfigLike, options?: KubeConnectionOptions): KubeConnection {
    return new KubeConnection(kubeConfig, options);
  }

  /**
   * `KUBECONFIG` (every file, merged), `~/.kube/config`, or the in-cluster service account, as
   * client-node's `loadFromDefault` — but with none of them a `KubeConfigError` instead of
   * `http://localhost:8080`.
   */
  static fromDefault(options?: KubeConnectionOptions): KubeConnection {
    const { kubeConfig, file } = loadDefaultKubeConfig();
    checkCurrentContext(kubeConfig, file);
    checkCredentialFiles(kubeConfig, file);
    return new KubeConnection(kubeConfig, options);
  }

  /**
   * From a kubeconfig file (relative paths in it resolve against its folder).
   * @throws KubeConfigError naming the file: missing, unreadable, not YAML (line and column), not a
   *   kubeconfig, or without a usable current context.
   */
  static fromFile(file: string, options?: KubeConnectionOptions): KubeConnection {
    const kc = loadKubeConfigFile(file);
    checkCurrentContext(kc, file);
    checkCredentialFiles(kc, file);
    return new KubeConnection(kc, options);
  }

  /**
   * From the pod's service account (`KUBERNETES_SERVICE_HOST`, token and CA files).
   * @throws InClusterConfigError naming the missing variable or file (e.g. outside a pod).
   */
  static inCluster(options?: KubeConnectionOptions): KubeConnection {
    return new KubeConnection(loadInClusterConfig(), options);
  }

  /**
   * Sends a request and resolves with its parsed JSON body (undefined when empty); rejects with
   * `ApiError`, `NetworkError`, or `ResponseDecodeError` for a 2xx body that is not JSON.
   * Answers of 429, 503 and 504 are retried as the connection's retry policy (or `options.retry`)
   * says, waiting on the connection's scheduler; `signal` also cancels a wait between attempts.
   * Each attempt has a deadline (`options.timeoutMs`, else the connection's `requestTimeoutMs`):
   * past it the request is aborted and fails with {@link RequestTimeoutError}.
   */
  async request<T>(request: KubeRequest, signal?: AbortSignal, options: RequestOptions = {}): Promise<T> {
    const policy = options.retry === undefined ? this.retry : resolveRetryPolicy(options.retry);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.requestOnce<T>(request, signal, options.timeoutMs ?? this.requestTimeoutMs);
      } catch (err) {
        const delay = policy === undefined ? undefined : retryDelayMs(policy, err, methodOf(request), attempt);
        if (delay === undefined || signal?.aborted) throw err;
        await delayOn(this.scheduler, delay, signal);
      }
    }
  }

  /** One attempt of {@link KubeConnection.request} (no retries), aborted after `timeoutMs` (0: no deadline). */
  protected async requestOnce<T>(request: KubeRequest, signal: AbortSignal | undefined, timeoutMs = this.requestTimeoutMs): Promise<T> {
    const limit = deadline(this.scheduler, timeoutMs, signal, () => this.timeoutError(request, timeoutMs, 'response'));
    let body: Buffer;
    try {
      const { response } = await this.open(request, limit.signal);
      body = await readBody(response, request, limit.signal);
    } finally {
      limit.release();
    }
    return parseJsonBody<T>(methodOf(request), request.path, body.toString('utf8'));
  }

  /**
   * A streaming GET: emits the response body's chunks as they arrive and completes at its end.
   * Cold: each subscription sends the request; unsubscribing aborts it. Errors with `ApiError`
   * for a non-2xx response and `NetworkError` when the connection fails or the body ends early;
   * with {@link RequestTimeoutError} when the headers (or, but for a watch, the next chunk of the
   * body) take longer than `options.timeoutMs` (default the connection's `requestTimeoutMs`).
   */
  stream(request: KubeRequest, options: StreamOptions = {}): Observable<Buffer> {
    return new Observable<Buffer>((subscriber) => {
      const abort = new AbortController();
      const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
      const headers = deadline(this.scheduler, timeoutMs, abort.signal, () => this.timeoutError(request, timeoutMs, 'response'));
      let idle: (() => void) | undefined;
      this.open(request, headers.signal).then(
        ({ response }) => {
          headers.cancel();
          if (abort.signal.aborted) return;
          let ended = false;
          if (isWatchRequest(request)) {
            response.on('data', (chunk: Buffer) => subscriber.next(chunk));
          } else {
            const gap = idleTimer(this.scheduler, timeoutMs, () => {
              response.destroy();
              subscriber.error(this.timeoutError(request, timeoutMs, 'response'));
            });
            idle = gap.stop;
            response.on('data', (chunk: Buffer) => {
              gap.touch();
              subscriber.next(chunk);
            });
          }
          response.on('end', () => {
            ended = true;
            idle?.();
            subscriber.complete();
          });
          response.on('error', (err) => {
            if (!abort.signal.aborted) subscriber.error(new NetworkError(methodOf(request), request.path, err));
          });
          response.on('close', () => {
            if (!ended && !abort.signal.aborted) {
              subscriber.error(new NetworkError(methodOf(request), request.path, new Error('response body ended early')));
            }
          });
        },
        (err: unknown) => {
          headers.cancel();
          if (!abort.signal.aborted) subscriber.error(err);
        },
      );
      return () => {
        idle?.();
        abort.abort();
        headers.release();
      };
    });
  }

  private timeoutError(request: KubeRequest, timeoutMs: number, phase: RequestTimeoutPhase): RequestTimeoutError {
    return new RequestTimeoutError(this.server.host, methodOf(request), request.path, timeoutMs, phase);
  }

  /**
   * Calls `observer` after every request with its method, server, status code (none for a
   * network failure) and duration: the hook behind `rest_client_requests_total`. Aborted requests
   * are not reported. Returns a function that removes the observer.
   */
  observeRequests(observer: RequestObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  private report(method: string, code: number | undefined, startedAt: number): void {
    if (this.observers.size === 0) return;
    const outcome: RequestOutcome = { method, host: this.server.host, code, durationMs: this.scheduler.now() - startedAt };
    for (const observer of this.observers) {
      try {
        observer(outcome);
      } catch {
        // An observer must not break requests.
      }
    }
  }

  /** Destroys the agent's sockets. Requests after this fail. */
  close(): void {
    this.closed = true;
    this.credentials?.close();
    this.agent?.destroy();
    this.agent = undefined;
  }

  /** The agent currently in use (exposed for tests and diagnostics). */
  get currentAgent(): http.Agent | undefined {
    return this.agent;
  }

  private async prepare(): Promise<Prepared> {
    const opts: https.RequestOptions = {};
    await this.authConfig.applyToHTTPSOptions(opts);
    if (this.credentials !== undefined) await this.credentials.apply(opts);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      if (value !== undefined) headers[name] = String(value);
    }
    const secrets: string[] = [];
    const authorization = headers.Authorization ?? headers.authorization;
    if (authorization !== undefined) secrets.push(authorization.replace(/^Bearer\s+/i, ''));
    const auth = typeof opts.auth === 'string' ? opts.auth : undefined;
    if (auth !== undefined) secrets.push(auth.slice(auth.indexOf(':') + 1));
    const key = opts.key === undefined ? undefined : Array.isArray(opts.key) ? undefined : Buffer.isBuffer(opts.key) ? opts.key.toString('utf8') : String(opts.key);
    if (key !== undefined) secrets.push(key);
    for (const secret of secrets) rememberSecret(secret);
    return { headers, agent: this.agentFor(opts), auth, secrets };
  }

  private agentFor(opts: https.RequestOptions): http.Agent {
    if (this.closed) throw new Error('KubeConnection is closed');
    const cluster = this.kubeConfig.getCurrentCluster();
    // Proxies: client-node builds (and caches per cluster and user) the right proxy agent.
    if (cluster?.proxyUrl && opts.agent instanceof http.Agent) return opts.agent;
    const hash = createHash('sha256');
    for (const field of TLS_FIELDS) hash.update(`${field}=${fingerprint(opts[field])};`);
    const key = hash.digest('hex');
    if (this.agent !== undefined && key === this.agentKey) return this.agent;
    const previous = this.agent;
    const tls: https.AgentOptions = {};
    for (const field of TLS_FIELDS) {
      if (opts[field] !== undefined) Object.assign(tls, { [field]: opts[field] });
    }
    this.agent =
      this.server.protocol === 'http:' ? new http.Agent(this.agentOptions) : new https.Agent({ ...this.agentOptions, ...tls });
    this.agentKey = key;
    if (previous !== undefined) retire(previous);
    return this.agent;
  }

  private async open(
    request: KubeRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ response: http.IncomingMessage; prepared: Prepared }> {
    signal?.throwIfAborted();
    const startedAt = this.scheduler.now();
    const prepared = await this.prepare();
    signal?.throwIfAborted();
    const method = methodOf(request);
    const path = joinPath(this.server.pathname, request.path) + queryString(request.query);
    let payload: string | undefined;
    const headers: Record<string, string> = { Accept: request.accept ?? 'application/json', 'User-Agent': USER_AGENT, ...prepared.headers };
    if (request.body !== undefined) {
      payload = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const transport = this.server.protocol === 'http:' ? http : https;
    const attempt = (retried: boolean): Promise<{ response: http.IncomingMessage; prepared: Prepared }> =>
      new Promise((resolve, reject) => {
        let answered = false;
        const req = transport.request({
          protocol: this.server.protocol,
          hostname: this.server.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.server.port,
          path,
          method,
          headers,
          agent: prepared.agent,
          ...(prepared.auth !== undefined ? { auth: prepared.auth } : {}),
        });
        let timedOut = false;
        boundConnection(req, this.scheduler, this.connectTimeoutMs, this.tlsHandshakeTimeoutMs, this.server.protocol === 'https:', (phase, ms) => {
          if (answered || timedOut) return;
          timedOut = true;
          req.destroy();
          this.report(method, undefined, startedAt);
          reject(this.timeoutError(request, ms, phase));
        });
        // Abort by destroying without an error: no stray 'error' events on the request or response.
        signal?.addEventListener(
          'abort',
          () => {
            req.destroy();
            if (!answered && !timedOut && signal.reason instanceof RequestTimeoutError) this.report(method, undefined, startedAt);
            reject(signal.reason);
          },
          { once: true },
        );
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (timedOut) return;
          if (signal?.aborted) return reject(signal.reason);
          // A kept-alive socket the server had closed while idle: send an idempotent request
          // once more on a fresh socket (as Go's transport does). POST and PATCH are not replayed.
          const replayable = method === 'GET' || method === 'PUT' || method === 'DELETE';
          if (replayable && !retried && !answered && req.reusedSocket && err.code === 'ECONNRESET') {
            return resolve(attempt(true));
          }
          if (!answered) this.report(method, undefined, startedAt);
          reject(new NetworkError(method, request.path, err));
        });
        req.on('response', (response) => {
          answered = true;
          const code = response.statusCode ?? 0;
          if (code === 401) this.credentials?.refused();
          this.report(method, code, startedAt);
          if (code >= 200 && code < 300) {
            resolve({ response, prepared });
            return;
          }
          readBody(response, request, signal).then(
            (body) =>
              reject(
                apiErrorFromResponse(code, body.toString('utf8'), response.headers, {
                  nowMs: this.scheduler.now(),
                  secrets: prepared.secrets,
                  request: { server: printableServer(this.server), method, path: request.path + queryString(request.query), identity: this.identity },
                }),
              ),
            reject,
          );
        });
        req.end(payload);
      });
    return attempt(false);
  }
}

/**
 * Stops an agent whose TLS material was replaced: idle sockets close now, sockets still carrying a
 * request (a long watch) finish it and then close instead of returning to the pool.
 */
function retire(agent: http.Agent): void {
  (agent as { keepAlive?: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

function readBody(response: http.IncomingMessage, request: KubeRequest, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks));
    });
    response.on('error', (err) => reject(signal?.aborted ? signal.reason : new NetworkError(methodOf(request), request.path, err)));
    response.on('close', () => {
      if (!ended) {
        reject(
          signal?.aborted
            ? signal.reason
            : new NetworkError(methodOf(request), request.path, new Error('response body ended early')),
        );
      }
    });
  });
}

function fingerprint(value: unknown): string {
  if (value === undefined) return '-';
  if (Buffer.isBuffer(value)) return createHash('sha256').update(value).digest('hex');
  if (Array.isArray(value)) return value.map(fingerprint).join(',');
  return createHash('sha256').update(String(value)).digest('hex');
}
