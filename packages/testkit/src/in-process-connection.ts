import type { IncomingMessage, ServerResponse } from 'node:http';
import type https from 'node:https';
import { Readable } from 'node:stream';
import { Observable, type SchedulerLike } from 'rxjs';
import { apiErrorFromResponse } from 'rxkube/client';
import { KubeConnection, type KubeRequest, queryString } from 'rxkube/client';
import { type KubeConnectionOptions } from 'rxkube';
import type { KubeConfigLike } from 'rxkube';
import { ResponseDecodeError } from 'rxkube/client';
import type { ApiCore } from './api-server/api-core.js';
import { optionalInt } from './api-server/http-io.js';
import { watchListParams } from './api-server/watch-options.js';
import type { StoreEvent, StoredEntry } from './api-server/object-store.js';
import { requestSelectors } from './api-server/request-selectors.js';
import { apiVersionOf, resourceId } from './api-server/resource-registry.js';
import { parseRoute } from './api-server/route.js';
import { failure, reasonForCode, StatusError, unknownPath } from './api-server/status-error.js';

/** The server URL of in-process connections (never contacted). */
export const IN_PROCESS_SERVER = 'http://in-process.rxkube.invalid';

/** A kubeconfig naming the in-process server; it has no credentials to apply. */
function inProcessKubeConfig(): KubeConfigLike {
  const cluster = { name: 'in-process', server: IN_PROCESS_SERVER, skipTLSVerify: true };
  const user = { name: 'in-process' };
  const context = { name: 'in-process', cluster: 'in-process', user: 'in-process', namespace: 'default' };
  return {
    clusters: [cluster],
    users: [user],
    contexts: [context],
    currentContext: 'in-process',
    getCurrentContext: () => 'in-process',
    getContextObject: (name) => (name === 'in-process' ? context : null),
    getCurrentCluster: () => cluster,
    getCurrentUser: () => user,
    applyToHTTPSOptions: async (_opts: https.RequestOptions) => undefined,
  };
}

interface Captured {
  readonly code: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The parts of a `ServerResponse` the request handler uses, captured in memory. */
class CapturedResponse {
  headersSent = false;
  private code = 200;
  private headers: Record<string, string> = {};
  private readonly chunks: string[] = [];
  readonly done: Promise<Captured>;
  private resolve!: (c: Captured) => void;
  private reject!: (e: unknown) => void;

  constructor() {
    this.done = new Promise<Captured>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  writeHead(code: number, headers: Record<string, string | number> = {}): this {
    this.code = code;
    for (const [k, v] of Object.entries(headers)) this.headers[k.toLowerCase()] = String(v);
    this.headersSent = true;
    return this;
  }

  setHeader(name: string, value: string | number): this {
    this.headers[name.toLowerCase()] = String(value);
    return this;
  }

  flushHeaders(): void {}

  write(chunk: string | Buffer): boolean {
    this.chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    this.resolve({ code: this.code, headers: this.headers, body: this.chunks.join('') });
    return this;
  }

  destroy(): this {
    this.reject(new Error('in-process response destroyed'));
    return this;
  }

  on(): this {
    return this;
  }

  once(): this {
    return this;
  }
}

/**
 * A {@link KubeConnection} to an embedded API server core in this process: requests go straight
 * to its request handler (no sockets, no HTTP), watches straight to its store, and every watch
 * event is delivered on `scheduler` after `watchLatencyMs` (virtual time in tests). The client,
 * discovery, list/watch and error paths above the connection are the ones used against a real
 * cluster.
 */
export class InProcessConnection extends KubeConnection {
  private readonly watchScheduler: SchedulerLike;
  private readonly latency: number;
  private readonly openWatches = new Set<() => void>();

  constructor(
    private readonly core: ApiCore,
    options: KubeConnectionOptions & { readonly scheduler: SchedulerLike; readonly watchLatencyMs?: number },
  ) {
    super(inProcessKubeConfig(), options);
    this.watchScheduler = options.scheduler;
    this.latency = options.watchLatencyMs ?? 0;
  }

  /** Watches open now. */
  get watchCount(): number {
    return this.openWatches.size;
  }

  protected override async requestOnce<T>(request: KubeRequest, signal: AbortSignal | undefined): Promise<T> {
    signal?.throwIfAborted();
    const method = request.method ?? 'GET';
    const payload = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    const req = Readable.from(payload === undefined ? [] : [Buffer.from(payload)]) as Readable & Record<string, unknown>;
    Object.assign(req, {
      url: request.path + queryString(request.query),
      method,
      complete: true,
      headers: {
        accept: 'application/json',
        'user-agent': 'rxkube-in-process',
        ...(payload === undefined
          ? {}
          : { 'content-type': request.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
      },
    });
    const res = new CapturedResponse();
    this.core.handler.handle(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    const answer = await res.done;
    signal?.throwIfAborted();
    if (answer.code < 200 || answer.code >= 300) {
      throw apiErrorFromResponse(answer.code, answer.body, answer.headers, { nowMs: this.watchScheduler.now() });
    }
    if (answer.body.trim() === '') return undefined as T;
    try {
      return JSON.parse(answer.body) as T;
    } catch (cause) {
      throw new ResponseDecodeError(method, request.path, 'response body is not JSON', { cause });
    }
  }

  /** Watches (`watch=true`) from the store; anything else as one chunk of the request's answer. */
  override stream(request: KubeRequest): Observable<Buffer> {
    if (request.query?.['watch'] !== true && request.query?.['watch'] !== 'true') {
      return new Observable<Buffer>((subscriber) => {
        this.requestOnce<unknown>(request, undefined).then(
          (body) => {
            subscriber.next(Buffer.from(JSON.stringify(body ?? '')));
            subscriber.complete();
          },
          (err: unknown) => subscriber.error(err),
        );
      });
    }
    return new Observable<Buffer>((subscriber) => {
      let closed = false;
      const pending = new Set<{ unsubscribe(): void }>();
      const send = (line: string, end = false): void => {
        const action = this.watchScheduler.schedule(() => {
          pending.delete(action);
          if (closed) return;
          subscriber.next(Buffer.from(line));
          if (end) finish();
        }, this.latency);
        pending.add(action);
      };
      let stopListening: (() => void) | undefined;
      const finish = (): void => {
        if (closed) return;
        closed = true;
        stopListening?.();
        this.openWatches.delete(finish);
        subscriber.complete();
      };
      try {
        stopListening = this.openWatch(request, send, () => finish());
        this.openWatches.add(finish);
      } catch (err) {
        if (err instanceof StatusError) {
          subscriber.error(apiErrorFromResponse(err.status.code, JSON.stringify(err.status), err.headers, { nowMs: this.watchScheduler.now() }));
        } else subscriber.error(err);
        return undefined;
      }
      return () => {
        closed = true;
        stopListening?.();
        this.openWatches.delete(finish);
        for (const p of pending) p.unsubscribe();
      };
    });
  }

  /** Ends every open watch (as a server restart would). */
  endWatches(): number {
    const all = [...this.openWatches];
    for (const finish of all) finish();
    return all.length;
  }

  override close(): void {
    this.endWatches();
  }

  /**
   * Starts one watch: validates it (throws StatusError), sends the initial state or the history
   * after `resourceVersion` (an ERROR event when compacted), then live events; ends after
   * `timeoutSeconds` on the scheduler. Returns the function that stops listening.
   */
  private openWatch(request: KubeRequest, send: (line: string, end?: boolean) => void, end: () => void): () => void {
    const { store, registry } = this.core;
    const route = parseRoute(request.path, (g, p) => registry.byGroupPlural(g, p) !== undefined);
    if (route.type !== 'resource') throw unknownPath();
    const r = registry.find(route.group, route.version, route.plural);
    if (r === undefined) throw unknownPath();
    const q = new URLSearchParams(queryString(request.query).slice(1));
    this.core.requests.record('GET', request.path, queryString(request.query), true, `${route.group}/${route.plural}`);
    const fail = this.core.faults.takeFailure('GET', request.path, true); // faults.failNext applies to watches too
    if (fail !== undefined) {
      const retry = fail.retryAfterSeconds;
      throw new StatusError(
        failure(fail.code, fail.reason ?? reasonForCode(fail.code), fail.message ?? `injected failure (${fail.code})`, retry !== undefined ? { retryAfterSeconds: retry } : undefined),
        retry !== undefined ? { 'Retry-After': String(retry) } : {},
      );
    }
    const sel = requestSelectors(r, q, route.name);
    const id = resourceId(r);
    const ns = route.namespace;
    const inScope = (e: StoredEntry): boolean => ns === undefined || e.key.startsWith(`${ns}/`);
    const rvParam = q.get('resourceVersion') ?? '';
    const { sendInitial } = watchListParams(q, registry.kubernetesVersion);
    const line = (type: string, e: StoredEntry): string => `{"type":"${type}","object":${e.json}}\n`;
    let afterRv = 0;
    if (sendInitial || rvParam === '' || rvParam === '0') {
      for (const e of store.snapshot(id)) if (inScope(e) && sel.matches(e.object)) send(line('ADDED', e));
      afterRv = store.resourceVersion;
      if (sendInitial) {
        const bookmark = { kind: r.kind, apiVersion: apiVersionOf(r.group, route.version), metadata: { resourceVersion: String(afterRv), annotations: { 'k8s.io/initial-events-end': 'true' } } };
        send(`{"type":"BOOKMARK","object":${JSON.stringify(bookmark)}}\n`);
      }
    } else {
      const from = Number(rvParam);
      try {
        for (const e of store.eventsSince(id, from)) deliver(e);
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        send(`{"type":"ERROR","object":${JSON.stringify(err.status)}}\n`, true);
        return () => undefined;
      }
      afterRv = Math.max(from, store.resourceVersion);
    }
    function deliver(event: StoreEvent): void {
      if (event.resourceId !== id || !inScope(event.entry)) return;
      const now = sel.matches(event.entry.object);
      if (event.type === 'DELETED') {
        if (now) send(line('DELETED', event.entry));
        return;
      }
      const before = event.prev !== undefined && sel.matches(event.prev.object);
      if (now && before) send(line('MODIFIED', event.entry));
      else if (now) send(line('ADDED', event.entry));
      else if (before) send(line('DELETED', event.entry));
    }
    const off = store.onEvent((event) => {
      if (event.rv > afterRv) deliver(event);
    });
    const timeout = optionalInt(q, 'timeoutSeconds');
    const timer = timeout !== undefined && timeout > 0 ? this.watchScheduler.schedule(end, timeout * 1000) : undefined;
    return () => {
      off();
      timer?.unsubscribe();
    };
  }
}
