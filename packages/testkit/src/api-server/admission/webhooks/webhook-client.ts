/**
 * Calls a webhook over HTTP(S): the URL from `clientConfig.url`, or a service resolved through
 * the server's option (kube-apiserver resolves services to cluster IPs the embedded server cannot
 * reach); `caBundle` verifies the certificate; the call is cut at `timeoutSeconds` on the
 * injected scheduler. Failures carry the text Go's HTTP client gives kube-apiserver 1.20
 * (`Post "URL": dial tcp …: connect: connection refused`, `context deadline exceeded`).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { asyncScheduler, Subscription, type SchedulerLike } from 'rxjs';
import type { WebhookClientConfig } from './webhook-config.js';

/** A webhook's service (`clientConfig.service`). */
export interface WebhookServiceRef {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  readonly path?: string;
}

/** How the embedded server reaches webhooks. */
export interface WebhookCallSettings {
  /** Base URL for a webhook's service (e.g. `https://127.0.0.1:9443`); undefined: not reachable. */
  readonly resolveService?: (service: WebhookServiceRef) => string | undefined;
  /** Scheduler of the call timeouts (default: rxjs `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
  /** Whether a service exists in the store (its absence is answered as kube-apiserver's resolver does). */
  readonly serviceExists?: (namespace: string, name: string) => boolean;
}

/** A webhook could not be called, or answered something that is not a review (kube-apiserver's `ErrCallingWebhook` reason). */
export class WebhookCallFailure {
  constructor(readonly reason: string) {}
}

/** Largest webhook answer read (kube-apiserver has no smaller limit that matters here). */
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

/** The URL kube-apiserver posts to: the configured one plus `timeout=Ns`. */
export function webhookUrl(config: WebhookClientConfig, timeoutSeconds: number, settings: WebhookCallSettings): string {
  let base: string;
  if (config.url !== undefined) base = config.url;
  else if (config.service !== undefined) {
    const s = config.service;
    if (settings.serviceExists !== undefined && !settings.serviceExists(s.namespace, s.name)) throw new WebhookCallFailure(`service "${s.name}" not found`);
    const resolved = settings.resolveService?.(s);
    if (resolved === undefined) {
      throw new WebhookCallFailure(`Post "https://${s.name}.${s.namespace}.svc:${s.port}${s.path ?? ''}?timeout=${timeoutSeconds}s": the embedded API server cannot reach service ${s.namespace}/${s.name} (no resolveService mapping)`);
    }
    const u = new URL(resolved);
    if (s.path !== undefined) u.pathname = s.path;
    base = u.toString();
  } else throw new WebhookCallFailure('invalid webhook client config: neither url nor service is set');
  const u = new URL(base);
  u.searchParams.append('timeout', `${timeoutSeconds}s`);
  return u.toString();
}

function goDialText(url: URL, e: NodeJS.ErrnoException): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  const host = url.hostname.startsWith('[') ? url.hostname : url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname;
  switch (e.code) {
    case 'ECONNREFUSED': return `dial tcp ${host}:${port}: connect: connection refused`;
    case 'ENOTFOUND': return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'ECONNRESET': return 'EOF';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_SIGNATURE_FAILURE':
      return 'x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `x509: certificate is not valid for ${url.hostname}`;
    case 'CERT_HAS_EXPIRED': return 'x509: certificate has expired or is not yet valid';
    default: return e.message;
  }
}

/**
 * POSTs `body` (JSON) to `url` and returns the parsed answer; throws {@link WebhookCallFailure}
 * on a connection, TLS, timeout, status or JSON failure.
 */
export function postReview(url: string, body: unknown, caPem: string | undefined, timeoutSeconds: number, settings: WebhookCallSettings): Promise<unknown> {
  const target = new URL(url);
  const data = Buffer.from(JSON.stringify(body));
  const scheduler = settings.scheduler ?? asyncScheduler;
  const post = `Post "${url}"`;
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = new Subscription();
    const finish = (f: () => void): void => {
      if (done) return;
      done = true;
      timer.unsubscribe();
      f();
    };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': String(data.length) };
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) {
          req.destroy();
          finish(() => reject(new WebhookCallFailure(`${post}: response body larger than ${MAX_RESPONSE_BYTES} bytes`)));
          return;
        }
        chunks.push(c);
      });
      res.on('error', (e) => finish(() => reject(new WebhookCallFailure(`${post}: ${e.message}`))));
      res.on('end', () => finish(() => {
        const text = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) {
          reject(new WebhookCallFailure(text.trim() !== '' ? `an error on the server ("${text.trim().slice(0, 1024)}") has prevented the request from succeeding` : `the server responded with the status code ${code} but did not return more information`));
          return;
        }
        try {
          resolve(JSON.parse(text) as unknown);
        } catch (e) {
          reject(new WebhookCallFailure(`couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`));
        }
      }));
    };
    const options = { method: 'POST', headers, ...(caPem !== undefined ? { ca: caPem } : {}) };
    const req = target.protocol === 'https:' ? httpsRequest(target, options, onResponse) : httpRequest(target, options, onResponse);
    req.on('error', (e: NodeJS.ErrnoException) => finish(() => reject(new WebhookCallFailure(`${post}: ${goDialText(target, e)}`))));
    timer.add(scheduler.schedule(() => {
      finish(() => reject(new WebhookCallFailure(`${post}: context deadline exceeded`)));
      req.destroy();
    }, timeoutSeconds * 1000));
    req.end(data);
  });
}
