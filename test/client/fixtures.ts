/** Tiny node:http(s) servers and kubeconfigs for wire-level client tests. */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { generate } from 'selfsigned';

export interface TestServer {
  readonly url: string;
  /** Every request the server saw, in order. */
  readonly requests: RecordedRequest[];
  /** Remote ports of every accepted connection (one per TCP socket). */
  readonly connections: number[];
  close(): Promise<void>;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly remotePort: number | undefined;
  /** Resolves when the client side of this request goes away (abort or end). */
  readonly closed: Promise<void>;
}

export type Handler = (req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>;

export async function startServer(handler: Handler, tls?: https.ServerOptions): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const connections: number[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
        closed,
      };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, res)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  server.on(tls ? 'secureConnection' : 'connection', (socket: { remotePort?: number }) => {
    connections.push(socket.remotePort ?? -1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface KubeConfigOptions {
  readonly token?: string;
  readonly caData?: string;
  readonly skipTLSVerify?: boolean;
  readonly certData?: string;
  readonly keyData?: string;
  readonly exec?: { command: string; args: string[] };
  readonly namespace?: string;
}

export function kubeConfigFor(server: string, options: KubeConfigOptions = {}): KubeConfig {
  const b64 = (s: string | undefined): string | undefined => (s === undefined ? undefined : Buffer.from(s).toString('base64'));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: options.skipTLSVerify ?? false, caData: b64(options.caData) }],
    users: [
      {
        name: 'u',
        token: options.token,
        certData: b64(options.certData),
        keyData: b64(options.keyData),
        exec: options.exec && { apiVersion: 'client.authentication.k8s.io/v1', ...options.exec, interactiveMode: 'Never' },
      },
    ],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u', namespace: options.namespace }],
    currentContext: 'ctx',
  });
  return kc;
}

export function json(res: http.ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export interface TestCerts {
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

/** A self-signed CA-capable server certificate for 127.0.0.1 plus a client certificate it signed. */
export async function makeCerts(): Promise<TestCerts> {
  const pems = await generate([{ name: 'commonName', value: 'rxkube-test' }], {
    keySize: 2048,
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  // A self-signed client certificate; servers that want it list it as a trusted CA.
  const client = await generate([{ name: 'commonName', value: 'rxkube-client' }], {
    keySize: 2048,
    extensions: [{ name: 'extKeyUsage', clientAuth: true }],
  });
  return { ca: pems.cert, serverCert: pems.cert, serverKey: pems.private, clientCert: client.cert, clientKey: client.private };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
