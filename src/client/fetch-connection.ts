import { asyncScheduler, Observable, type SchedulerLike } from 'rxjs';
import { rememberSecret } from '../logging/known-secrets.js';
import type { ApiConnection } from './api-connection.js';
import { apiErrorFromResponse } from './api-error-from-response.js';
import { printableServer } from './api-request-context.js';
import { FetchConfigError } from './fetch-config-error.js';
import { isWatchRequest, joinPath, type KubeRequest, methodOf, queryString, type RequestOptions, type StreamOptions } from './kube-request.js';
import { NetworkError } from './network-error.js';
import type { RequestObserver, RequestOutcome } from './request-outcome.js';
import { RequestTimeoutError } from './request-timeout-error.js';
import { deadline, DEFAULT_REQUEST_TIMEOUT_MS, idleTimer } from './request-deadline.js';
import { parseJsonBody } from './response-decode-error.js';
import { delayOn, type ResolvedRetryPolicy, resolveRetryPolicy, type RetryPolicy, retryDelayMs } from './retry-policy.js';

/** Supplies the bearer token of each request (e.g. from the app's login session); may be async. */
export type TokenProvider = () => string | Promise<string>;

/** The `fetch` a {@link FetchConnection} calls: the runtime's own, or one you wrap. */
export type FetchFunction = typeof globalThis.fetch;

/** Options of {@link FetchConnection} (and `fetchClient`). Durations in ms. */
export interface FetchConnectionOptions {
  /**
   * The API server, or a proxy in front of it: an absolute URL (`https://api.example:6443`), or —
   * in a browser — a path resolved against the page (`/k8s` for a same-origin `kubectl proxy` or
   * dashboard backend). Requests go to this URL's path plus the API path (`/k8s/api/v1/pods`).
   */
  readonly server: string | URL;
  /**
   * Bearer token sent as `Authorization: Bearer …`, or a function asked for it before every
   * request (cache it there; a rejected promise fails the request with a `NetworkError`). Absent:
   * no `Authorization` header (a proxy adds credentials, or a cookie session carries them).
   */
  readonly token?: string | TokenProvider;
  /** The `fetch` to call; default `globalThis.fetch`. */
  readonly fetch?: FetchFunction;
  /** Default namespace (`connection.namespace`); none by default. */
  readonly namespace?: string;
  /** Extra headers of every request (e.g. a CSRF header a dashboard backend wants). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * `fetch`'s credentials mode: `'same-origin'` (the default: cookies go to a same-origin
   * backend), `'include'` (also cross-origin; the server must allow credentials) or `'omit'`.
   */
  readonly credentials?: 'omit' | 'same-origin' | 'include';
  /** Clock of every timer: retry backoff, deadlines, idle gaps, `Retry-After` dates. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Retries of `request()` answered 429, 503 or 504 (backoff, honouring `Retry-After`; a POST only
   * on 429), as `KubeConnectionOptions.retry`. Default `DEFAULT_RETRY_POLICY`; `false`: none.
   * Streams (lists and watches) are not retried here: the reflector backs them off.
   */
  readonly retry?: RetryPolicy | false;
  /**
   * Deadline of every non-watch request (each attempt, each list page), from sending it to the end
   * of its answer; for a stream, the time to its response headers and (but for a watch) the
   * longest quiet gap in its body. Default 60 000; 0: none. Fails with `RequestTimeoutError`
   * (`phase: 'response'`; `fetch` has no separate connect or TLS phase to bound).
   */
  readonly requestTimeoutMs?: number;
}

/**
 * A connection to an API server over `fetch` and web streams: the transport of `fetchClient` in a
 * browser, and usable in any runtime with `fetch` (Node.js, Deno, Bun, workers). Same semantics as
 * the Node.js `KubeConnection` above the wire: JSON requests with retries of 429/503/504 (backoff,
 * `Retry-After`), a deadline per attempt, streamed list and watch bodies (cold; unsubscribing
 * aborts the request), a bounded quiet gap in list bodies, `ApiError` / `NetworkError` /
 * `RequestTimeoutError` / `ResponseDecodeError` with the token masked in every quoted server text.
 *
 * What it leaves to the runtime: TLS, proxies and connection reuse (the browser's), and cookies.
 * A browser's `fetch` cannot read a cross-origin response unless the server allows it (CORS), and
 * exposes `Retry-After` to the page only when the server lists it in `Access-Control-Expose-Headers`.
 */
export class FetchConnection implements ApiConnection {
  readonly server: URL;
  readonly namespace: string | undefined;
  readonly requestTimeoutMs: number;
  private readonly scheduler: SchedulerLike;
  private readonly retry: ResolvedRetryPolicy | undefined;
  private readonly fetchFn: FetchFunction;
  private readonly token: string | TokenProvider | undefined;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly credentials: 'omit' | 'same-origin' | 'include' | undefined;
  private readonly observers = new Set<RequestObserver>();
  /** Aborts every request in flight when the connection is closed. */
  private readonly closing = new AbortController();

  constructor(options: FetchConnectionOptions) {
    this.server = serverUrl(options.server);
    const fetchFn = options.fetch ?? (globalThis as { fetch?: FetchFunction }).fetch;
    if (typeof fetchFn !== 'function') throw new FetchConfigError('this runtime has no fetch: pass one as the fetch option', { option: 'fetch' });
    this.fetchFn = fetchFn;
    this.namespace = options.namespace || undefined;
    this.token = options.token;
    this.headers = { ...options.headers };
    this.credentials = options.credentials;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.retry = resolveRetryPolicy(options.retry);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /**
   * Sends a request and resolves with its parsed JSON body (undefined when empty); rejects with
   * `ApiError`, `NetworkError`, `RequestTimeoutError`, or `ResponseDecodeError` for a 2xx body that
   * is not JSON. 429, 503 and 504 are retried as the retry policy says, waiting on the scheduler;
   * `signal` also cancels a wait between attempts.
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

  private async requestOnce<T>(request: KubeRequest, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
    const limit = deadline(this.scheduler, timeoutMs, signal, () => this.timeoutError(request, timeoutMs));
    let text: string;
    try {
      const response = await this.open(request, limit.signal);
      text = await readText(response, request, limit.signal, this.closing.signal);
    } finally {
      limit.release();
    }
    return parseJsonBody<T>(methodOf(request), request.path, text);
  }

  /**
   * A streaming GET: emits the response body's chunks (`Uint8Array`) as they arrive and completes
   * at its end. Cold: each subscription sends the request; unsubscribing aborts it. Errors with
   * `ApiError` for a non-2xx answer, `NetworkError` when the request fails or the body breaks off,
   * `RequestTimeoutError` when the headers (or, but for a watch, the next chunk) take longer than
   * `options.timeoutMs` (default `requestTimeoutMs`).
   */
  stream(request: KubeRequest, options: StreamOptions = {}): Observable<Uint8Array> {
    return new Observable<Uint8Array>((subscriber) => {
      const abort = new AbortController();
      const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
      const headers = deadline(this.scheduler, timeoutMs, abort.signal, () => this.timeoutError(request, timeoutMs));
      let stopIdle: (() => void) | undefined;
      const fail = (err: unknown): void => {
        if (!abort.signal.aborted) subscriber.error(err);
      };
      this.open(request, headers.signal).then(async (response) => {
        headers.cancel();
        if (abort.signal.aborted) return;
        const body = response.body;
        if (body === null) {
          subscriber.complete();
          return;
        }
        const reader = body.getReader();
        const gap = isWatchRequest(request)
          ? undefined
          : idleTimer(this.scheduler, timeoutMs, () => {
              fail(this.timeoutError(request, timeoutMs));
              abort.abort();
            });
        stopIdle = gap?.stop;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            if (abort.signal.aborted) return;
            gap?.touch();
            subscriber.next(value);
          }
        } catch (err) {
          gap?.stop();
          fail(this.closing.signal.aborted ? closedError(request) : new NetworkError(methodOf(request), request.path, err));
          return;
        }
        gap?.stop();
        if (!abort.signal.aborted) subscriber.complete();
      }, fail);
      return () => {
        stopIdle?.();
        abort.abort();
        headers.release();
      };
    });
  }

  /**
   * Calls `observer` after every request with its method, server, status code (none when no
   * answer came) and time to the response head: the hook behind `rest_client_requests_total`.
   * Returns a function that removes the observer.
   */
  observeRequests(observer: RequestObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Aborts every request in flight (streams error with a `NetworkError`); requests after this fail. */
  close(): void {
    this.closing.abort();
  }

  private timeoutError(request: KubeRequest, timeoutMs: number): RequestTimeoutError {
    return new RequestTimeoutError(this.server.host, methodOf(request), request.path, timeoutMs, 'response');
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

  /** The bearer token of the next request (remembered for redaction), or undefined for none. */
  private async currentToken(request: KubeRequest): Promise<string | undefined> {
    let token: string;
    try {
      token = typeof this.token === 'function' ? await this.token() : (this.token ?? '');
    } catch (err) {
      throw new NetworkError(methodOf(request), request.path, new Error(`token provider failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
    }
    if (token === '') return undefined;
    rememberSecret(token);
    return token;
  }

  /** Sends `request`; resolves with a 2xx response (body unread), rejects with its error otherwise. */
  private async open(request: KubeRequest, signal: AbortSignal): Promise<Response> {
    const method = methodOf(request);
    if (this.closing.signal.aborted) throw closedError(request);
    signal.throwIfAborted();
    const startedAt = this.scheduler.now();
    const token = await this.currentToken(request);
    signal.throwIfAborted();
    const headers: Record<string, string> = { Accept: request.accept ?? 'application/json', ...this.headers };
    if (token !== undefined) headers['Authorization'] = `Bearer ${token}`;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['Content-Type'] = request.contentType ?? 'application/json';
    }
    const url = `${this.server.origin}${joinPath(this.server.pathname, request.path)}${queryString(request.query)}`;
    const both = AbortSignal.any([signal, this.closing.signal]);
    const fetchFn = this.fetchFn;
    let response: Response;
    try {
      response = await fetchFn(url, {
        method,
        headers,
        signal: both,
        ...(body !== undefined ? { body } : {}),
        ...(this.credentials !== undefined ? { credentials: this.credentials } : {}),
      });
    } catch (err) {
      if (signal.aborted) {
        if (signal.reason instanceof RequestTimeoutError) this.report(method, undefined, startedAt);
        throw signal.reason;
      }
      if (this.closing.signal.aborted) throw closedError(request);
      this.report(method, undefined, startedAt);
      throw new NetworkError(method, request.path, err);
    }
    const code = response.status;
    this.report(method, code, startedAt);
    if (code >= 200 && code < 300) return response;
    const text = await readText(response, request, signal, this.closing.signal);
    const answerHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answerHeaders[name.toLowerCase()] = value;
    });
    throw apiErrorFromResponse(code, text, answerHeaders, {
      nowMs: this.scheduler.now(),
      secrets: token === undefined ? [] : [token],
      request: {
        server: printableServer(this.server),
        method,
        path: request.path + queryString(request.query),
        // without a token, cookies or a proxy may carry credentials: nothing to say about them
        ...(token === undefined ? {} : { identity: { credential: typeof this.token === 'function' ? 'tokenProvider' : 'token' } }),
      },
    });
  }
}

/**
 * The whole body as text; a broken-off body fails with a `NetworkError`, an aborted one with the
 * abort reason (a closed connection's: a `NetworkError` saying so).
 */
async function readText(response: Response, request: KubeRequest, signal: AbortSignal, closing: AbortSignal): Promise<string> {
  try {
    return await response.text();
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (closing.aborted) throw closedError(request);
    throw new NetworkError(methodOf(request), request.path, err);
  }
}

/** The error of a request cut off (or refused) because its connection was closed. */
function closedError(request: KubeRequest): NetworkError {
  return new NetworkError(methodOf(request), request.path, new Error('connection closed'));
}

/** `server` as an absolute URL: relative ones resolve against the page (`location.href`) when there is one. */
function serverUrl(server: string | URL): URL {
  if (server instanceof URL) return new URL(server.href);
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  try {
    return page === undefined ? new URL(server) : new URL(server, page);
  } catch (cause) {
    const why = page === undefined ? 'not an absolute URL (there is no page to resolve a path against)' : 'not a URL';
    throw new FetchConfigError(`server ${JSON.stringify(server)} is ${why}`, { option: 'server', cause });
  }
}
