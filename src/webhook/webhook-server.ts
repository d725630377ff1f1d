import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import type { Registry } from 'prom-client';
import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import type { RunnableDeps } from '../api/runnable.js';
import { LOGGER_KEY } from '../logging/logger-key.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import { METRICS_REGISTRY_KEY } from '../metrics/registry-key.js';
import type { AdmissionWebhook } from './admission-webhook.js';
import { loadCertificatePair, watchCertificates, type WebhookTlsOptions } from './certificate-watcher.js';
import type { ConversionWebhook } from './conversion-webhook.js';
import { withDeadline } from './handler-deadline.js';
import { BodyLimitExceeded, readBody } from './read-body.js';
import { reviewAdmission } from './review-admission.js';
import { reviewConversion } from './review-conversion.js';
import { serverDrain, type ServerDrain } from './server-drain.js';
import { WebhookBodyTooLargeError, WebhookConfigError, WebhookReviewError } from './webhook-errors.js';
import { webhookMetrics, type WebhookRequestRecorder } from './webhook-metrics.js';

/** Any webhook the server serves. */
export type Webhook = AdmissionWebhook | ConversionWebhook;

/** Options of {@link webhookServer}. */
export interface WebhookServerOptions {
  /** The webhooks, each at its own path. */
  readonly webhooks: readonly Webhook[];
  /** The serving certificate: files re-read on change, or a pair in memory. */
  readonly tls: WebhookTlsOptions;
  /** Port; default 9443 (controller-runtime's). 0 picks a free one (see `listening`). */
  readonly port?: number;
  /** Interface; default `0.0.0.0`. */
  readonly host?: string;
  /**
   * Longest request body accepted; a longer one is denied (admission) or failed (conversion)
   * without being read to the end. Default 7 MiB, as controller-runtime (twice etcd's object limit
   * of 3 MiB, plus the review around the old and new objects).
   */
  readonly maxRequestBytes?: number;
  /** Timer scheduler (handler deadlines, certificate polling, latency clock). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Default: the manager's logger when added to one, else none. */
  readonly logger?: Logger;
  /** Registry of the webhook metrics. Default: the manager's when added to one, else none. */
  readonly registry?: Registry;
  /**
   * On stop, the longest wait for the requests in flight to be answered and the connections to
   * end (each answer from then on says `Connection: close`); then the connections still open are
   * closed and their handlers' signals aborted. Default: the longest admission handler timeout
   * plus 1 s (10 s when there is none), so every answer in flight can still reach the API server.
   */
  readonly drainTimeoutMs?: number;
}

/**
 * The webhook server: a runnable serving admission and conversion webhooks over HTTPS. A manager
 * puts it in its webhooks group (started after the HTTP servers and before the caches, stopped
 * after the caches, CR-12 to CR-14), and, with health probes, adds the `webhook` liveness and
 * readiness checks ({@link WebhookServer.startedCheck}).
 */
export interface WebhookServer {
  readonly name: string;
  readonly isWebhookServer: true;
  /** Runs on every replica, leader or not. */
  readonly needLeaderElection: false;
  readonly webhooks: readonly Webhook[];
  /** Resolves with the bound address once listening; rejects when it cannot listen. */
  readonly listening: Promise<AddressInfo>;
  /**
   * Listens until `signal` aborts, then closes after the requests in flight are answered (within
   * `drainTimeoutMs`; keep-alive connections are told to close after their answer).
   */
  start(signal: AbortSignal): Promise<void>;
  /** Takes the manager's logger and metrics registry, unless given in the options. */
  inject(deps: RunnableDeps): void;
  /**
   * A health check (controller-runtime's `StartedChecker`): resolves once the server is listening
   * and answers a TLS handshake within 5 s; rejects saying why not.
   */
  startedCheck(): Promise<void>;
}

const DEFAULT_MAX_BYTES = 7 * 1024 * 1024;
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Creates a {@link WebhookServer} for `webhooks`. Each request is answered, never thrown: a bad
 * review (not JSON, wrong kind or version, missing uid), a body over `maxRequestBytes`, a handler
 * that throws or runs past its timeout — each is an admission denial (or a conversion `Failure`)
 * whose message names the webhook, the object and the cause. Unknown paths get 404, other methods
 * than POST 405.
 *
 * ```ts
 * mgr.add(webhookServer({
 *   webhooks: [defaultDatabase, validateDatabase, convertDatabases],
 *   tls: { certFile: '/tmp/k8s-webhook-server/serving-certs/tls.crt', keyFile: '/tmp/k8s-webhook-server/serving-certs/tls.key' },
 * }));
 * ```
 */
export function webhookServer(options: WebhookServerOptions): WebhookServer {
  const byPath = new Map<string, Webhook>();
  for (const w of options.webhooks) {
    if (byPath.has(w.path)) throw new WebhookConfigError(`two webhooks are served at ${w.path}`, { option: 'webhooks' });
    byPath.set(w.path, w);
  }
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new WebhookConfigError(`maxRequestBytes must be a positive integer, got ${String(maxBytes)}`, { option: 'maxRequestBytes' });
  const scheduler = options.scheduler ?? asyncScheduler;
  const drainMs = options.drainTimeoutMs ?? defaultDrainMs(options.webhooks);
  if (!Number.isFinite(drainMs) || drainMs < 0) throw new WebhookConfigError(`drainTimeoutMs must be a non-negative number, got ${String(drainMs)}`, { option: 'drainTimeoutMs' });
  let logger = options.logger ?? noopLogger;
  let registry = options.registry;
  let record: WebhookRequestRecorder | undefined;
  let resolveListening!: (a: AddressInfo) => void;
  let rejectListening!: (e: unknown) => void;
  const listening = new Promise<AddressInfo>((res, rej) => {
    resolveListening = res;
    rejectListening = rej;
  });
  listening.catch(() => undefined);
  let address: AddressInfo | undefined;
  const stopping = new AbortController();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const webhook = byPath.get(path);
    if (webhook === undefined) return void sendText(res, 404, '404 page not found\n');
    if (req.method !== 'POST') return void sendText(res, 405, `method ${String(req.method)} not allowed; webhooks take POST\n`, { allow: 'POST' });
    const done = record?.(webhook.path);
    // Aborted when the client goes away or the server stops; both listeners are removed once answered.
    const abandoned = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) abandoned.abort(new Error('the client closed the connection'));
    };
    const onStop = (): void => abandoned.abort(stopping.signal.reason);
    res.once('close', onClose);
    stopping.signal.addEventListener('abort', onStop, { once: true });
    try {
      const denied = await answer(webhook, req, res, abandoned.signal);
      done?.(200, denied);
    } catch (err) {
      done?.(499, true);
      throw err;
    } finally {
      res.off('close', onClose);
      stopping.signal.removeEventListener('abort', onStop);
    }
  };

  /** Reads, reviews and answers one request to `webhook`; resolves with whether it was denied (or failed). */
  const answer = async (webhook: Webhook, req: IncomingMessage, res: ServerResponse, outer: AbortSignal): Promise<boolean> => {
    let body: unknown;
    let problem: Error | undefined;
    const contentType = String(req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json') {
      problem = new WebhookReviewError(webhook.path, 'Content-Type', `expected application/json, got ${JSON.stringify(req.headers['content-type'] ?? '')}`);
      req.resume();
    } else {
      const text = await readBody(req, maxBytes).catch((err: unknown) => err as Error);
      if (text instanceof BodyLimitExceeded) problem = new WebhookBodyTooLargeError(webhook.path, text.limitBytes);
      else if (text instanceof Error) {
        logger.warn('webhook request not read', { webhook: webhook.path, err: text });
        res.destroy();
        throw text;
      } else {
        try {
          body = JSON.parse(text) as unknown;
        } catch (err) {
          problem = new WebhookReviewError(webhook.path, undefined, `the body is not JSON: ${(err as Error).message}`);
        }
      }
    }
    let review: Readonly<Record<string, unknown>>;
    let denied: boolean;
    if (webhook.type === 'conversion') {
      const outcome = reviewConversion(webhook, problem === undefined ? body : undefined);
      review = problem === undefined ? outcome.review : failConversion(outcome.review, problem);
      denied = problem !== undefined || !outcome.succeeded;
    } else {
      const outcome = await reviewAdmission(webhook, problem === undefined ? body : undefined, { scheduler, logger, signal: outer });
      review = problem === undefined ? outcome.review : denyAdmission(outcome.review, problem);
      denied = !outcome.allowed;
    }
    if (problem !== undefined) logger.warn('bad webhook request', { webhook: webhook.path, err: problem });
    const payload = JSON.stringify(review);
    if (!res.destroyed) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      res.end(payload);
    }
    return denied;
  };

  return {
    name: 'webhook',
    isWebhookServer: true,
    needLeaderElection: false,
    webhooks: options.webhooks,
    listening,
    inject(deps) {
      if (options.logger === undefined) logger = (deps.get(LOGGER_KEY) ?? noopLogger).child({ component: 'webhook' });
      registry ??= deps.get(METRICS_REGISTRY_KEY);
    },
    async start(signal) {
      if (signal.aborted) {
        rejectListening(new Error('webhook server stopped before listening'));
        return;
      }
      if (registry !== undefined) record = webhookMetrics(registry, () => scheduler.now());
      let pair;
      try {
        pair = await loadCertificatePair(options.tls);
      } catch (err) {
        rejectListening(err);
        throw err;
      }
      const server = createServer({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' }, (req, res) => {
        drain.track(res);
        handle(req, res).catch((err: unknown) => {
          logger.error('webhook request failed', { err });
          if (!res.headersSent && !res.destroyed) sendText(res, 500, 'internal server error\n');
          else res.destroy();
        });
      });
      // Every request is bounded: the API server gives up after at most 30 s.
      server.requestTimeout = 60_000;
      server.headersTimeout = 30_000;
      const drain = serverDrain(server, {
        drainMs,
        scheduler,
        onForced: (open) => {
          logger.warn('webhook server: connections still open after the drain timeout, closing them', { drainTimeoutMs: drainMs, openConnections: open });
          stopping.abort(new Error(`the webhook server stopped: requests not answered within its drain timeout of ${drainMs} ms`));
        },
      });
      const watcher = watchCertificates(options.tls, pair, (next) => server.setSecureContext({ cert: next.cert, key: next.key }), scheduler, logger);
      try {
        await serve(server, drain, options.port ?? 9443, options.host ?? '0.0.0.0', signal, (a) => {
          address = a;
          resolveListening(a);
          logger.info('serving webhooks', { port: a.port, paths: [...byPath.keys()] });
        });
      } catch (err) {
        rejectListening(err);
        throw err;
      } finally {
        stopping.abort(new Error('the webhook server is stopping'));
        stopWatcher(watcher);
      }
    },
    startedCheck() {
      const at = address;
      if (at === undefined) return Promise.reject(new Error('webhook server is not listening yet'));
      const host = at.address === '0.0.0.0' || at.address === '::' ? '127.0.0.1' : at.address;
      return withDeadline(
        (signal) =>
          new Promise<void>((resolve, reject) => {
            const socket = connect({ host, port: at.port, rejectUnauthorized: false, servername: 'localhost' }, () => {
              socket.end();
              resolve();
            });
            socket.once('error', (err) => reject(new Error(`webhook server TLS handshake failed: ${err.message}`)));
            signal.addEventListener('abort', () => socket.destroy(), { once: true });
          }),
        CHECK_TIMEOUT_MS,
        scheduler,
        () => new Error(`webhook server did not complete a TLS handshake within ${CHECK_TIMEOUT_MS} ms`),
      );
    },
  };
}

function stopWatcher(watcher: Subscription | undefined): void {
  watcher?.unsubscribe();
}

/** The default `drainTimeoutMs`: every admission handler's answer in flight can still be sent. */
function defaultDrainMs(webhooks: readonly Webhook[]): number {
  const longest = Math.max(0, ...webhooks.map((w) => (w.type === 'conversion' ? 0 : w.timeoutMs)));
  return longest === 0 ? 10_000 : longest + 1_000;
}

/** Listens; resolves once `signal` aborted and the server drained; rejects when it cannot listen. */
function serve(server: Server, drain: ServerDrain, port: number, host: string, signal: AbortSignal, onListening: (a: AddressInfo) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return resolve();
    server.once('error', (err) => reject(new Error(`webhook server failed: ${err.message}`, { cause: err })));
    server.listen(port, host, () => {
      onListening(server.address() as AddressInfo);
      const close = (): void => drain.begin(resolve);
      if (signal.aborted) close();
      else signal.addEventListener('abort', close, { once: true });
    });
  });
}

function sendText(res: ServerResponse, status: number, text: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

function denyAdmission(review: Readonly<Record<string, unknown>>, problem: Error): Readonly<Record<string, unknown>> {
  const response = review.response as { uid?: string } | undefined;
  const code = problem instanceof WebhookBodyTooLargeError ? 413 : 400;
  return { ...review, response: { uid: response?.uid ?? '', allowed: false, status: { code, reason: code === 413 ? 'RequestEntityTooLarge' : 'BadRequest', message: problem.message } } };
}

function failConversion(review: Readonly<Record<string, unknown>>, problem: Error): Readonly<Record<string, unknown>> {
  const response = review.response as { uid?: string } | undefined;
  return { ...review, response: { uid: response?.uid ?? '', convertedObjects: [], result: { status: 'Failure', message: problem.message } } };
}
