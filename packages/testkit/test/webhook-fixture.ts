/** A plain node:https admission webhook for the embedded server's tests (and the differential e2e test). */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateTlsMaterial } from '../src/api-server/tls-certificate.js';

/** JSON as received. */
export type Json = Record<string, unknown>;

/** What a handler gets: the review, the path it was posted to (with the `timeout` query). */
export type WebhookHandler = (review: Json & { request: Json }, path: string) => Json | undefined | Promise<Json | undefined>;

/** A running webhook server. */
export interface FakeWebhook {
  /** Base URL, e.g. `https://127.0.0.1:1234`. */
  readonly url: string;
  /** base64 CA bundle for `clientConfig.caBundle`. */
  readonly caBundle: string;
  /** Every review received, with its path. */
  readonly calls: { readonly path: string; readonly review: Json & { request: Json } }[];
  handler: WebhookHandler;
  close(): Promise<void>;
}

/** Starts an HTTPS webhook on 127.0.0.1 with a fresh CA; `handler` answers (undefined: never answers). */
export async function startFakeWebhook(handler: WebhookHandler): Promise<FakeWebhook> {
  const tls = await generateTlsMaterial();
  const calls: FakeWebhook['calls'] = [];
  const hook = { handler } as { handler: WebhookHandler };
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json & { request: Json };
      const path = req.url ?? '/';
      calls.push({ path, review });
      void Promise.resolve(hook.handler(review, path)).then((answer) => {
        if (answer === undefined) return; // never answers (timeouts)
        const text = JSON.stringify(answer);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(tls.ca).toString('base64'),
    calls,
    get handler() {
      return hook.handler;
    },
    set handler(h: WebhookHandler) {
      hook.handler = h;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An AdmissionReview answer to `review` (same apiVersion and uid) with `response` fields. */
export function answer(review: Json & { request: Json }, response: Json): Json {
  return { apiVersion: review['apiVersion'], kind: 'AdmissionReview', response: { uid: review.request['uid'], ...response } };
}

/** An answer allowing with a JSON patch. */
export function patchAnswer(review: Json & { request: Json }, ops: readonly Json[], extra: Json = {}): Json {
  return answer(review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra });
}
