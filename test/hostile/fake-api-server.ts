/**
 * A small, deliberately misbehaving stand-in for kube-apiserver: a plain `node:http` server whose
 * every answer is written by the test. The hostile suite (`test/hostile/`) uses it to send rxkube
 * what a broken, frozen or malicious server would, and asserts that the outcome is bounded, loud
 * and leaks no credential.
 *
 * Every server is on loopback, keeps the requests it saw, and is closed by `close()` (which also
 * destroys open sockets, so a handler that never answers does not keep the test alive).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeConfigUser } from '../../src/client/kube-config-entries.js';
import type { KubeConfigLike } from '../../src/client/kube-config-like.js';

/** A request the fake server received. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
}

/** Writes the answer to one request (or never answers). */
export type FakeHandler = (req: http.IncomingMessage, res: http.ServerResponse, seen: SeenRequest) => void;

export interface FakeApiServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The bearer token the kubeconfig carries: a secret that must never appear in any output. */
  readonly token: string;
  /** A kubeconfig (no client-node) pointing at the server with {@link token}. */
  readonly kubeConfig: KubeConfigLike;
  /** Every request seen so far, in order. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/** A secret that looks like a service-account token and is unlikely to occur by chance. */
export function fakeToken(): string {
  return `eyJhbGciOiJSUzI1NiJ9.hostile-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}.sig`;
}

/** A {@link KubeConfigLike} for `server` with `user`, without client-node. */
export function plainKubeConfig(server: string, user: Omit<KubeConfigUser, 'name'>): KubeConfigLike {
  const cluster = { name: 'hostile', server, skipTLSVerify: true };
  const fullUser: KubeConfigUser = { name: 'hostile', ...user };
  const context = { name: 'hostile', cluster: 'hostile', user: 'hostile', namespace: 'default' };
  return {
    clusters: [cluster],
    users: [fullUser],
    contexts: [context],
    currentContext: 'hostile',
    getCurrentContext: () => 'hostile',
    getContextObject: (name) => (name === 'hostile' ? context : null),
    getCurrentCluster: () => cluster,
    getCurrentUser: () => fullUser,
    applyToHTTPSOptions: async (opts) => {
      if (fullUser.token !== undefined) opts.headers = { ...opts.headers, authorization: `Bearer ${fullUser.token}` };
    },
  };
}

/** Starts a fake API server on loopback answering every request with `handler`. */
export async function startFakeApiServer(handler: FakeHandler, options: { token?: string } = {}): Promise<FakeApiServer> {
  const token = options.token ?? fakeToken();
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    const seen: SeenRequest = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers };
    requests.push(seen);
    handler(req, res, seen);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token,
    kubeConfig: plainKubeConfig(url, { token }),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `body` as a JSON answer with `status`. */
export function json(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A `v1` list of `items` (Pods unless `kind` says otherwise) at `resourceVersion`, with an optional `continue`. */
export function podList(items: readonly unknown[], resourceVersion: string, cont?: string, kind = 'PodList'): unknown {
  return { kind, apiVersion: 'v1', metadata: { resourceVersion, ...(cont !== undefined ? { continue: cont } : {}) }, items };
}

/** A Pod named `name` in `namespace` at `resourceVersion`. */
export function pod(name: string, resourceVersion: string, namespace = 'default'): Record<string, unknown> {
  return { kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace, resourceVersion, uid: `uid-${namespace}-${name}` } };
}

/** Writes `text` with `status` and `contentType` (an HTML page, a proxy's plain text, …). */
export function rawAnswer(res: http.ServerResponse, status: number, text: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** What kube-apiserver's authorizer refused, as its 403 message states it. */
export interface ForbiddenRequest {
  readonly user: string;
  readonly verb: string;
  /** Plural, with `/subresource` if any. */
  readonly resource: string;
  /** `''` for the core group. */
  readonly group: string;
  /** Absent: at the cluster scope. */
  readonly namespace?: string;
  readonly name?: string;
}

/**
 * The 403 Status kube-apiserver (1.20 and later) answers when RBAC refuses a request, byte for
 * byte: `pods is forbidden: User "…" cannot list resource "pods" in API group "" in the namespace "x"`.
 */
export function kubeForbidden(res: http.ServerResponse, f: ForbiddenRequest): void {
  const q = (s: string): string => JSON.stringify(s);
  const [plural = ''] = f.resource.split('/');
  const gr = f.group === '' ? plural : `${plural}.${f.group}`;
  const where = f.namespace === undefined ? 'at the cluster scope' : `in the namespace ${q(f.namespace)}`;
  const message = `${gr}${f.name === undefined ? '' : ` ${q(f.name)}`} is forbidden: User ${q(f.user)} cannot ${f.verb} resource ${q(f.resource)} in API group ${q(f.group)} ${where}`;
  const details = { ...(f.name === undefined ? {} : { name: f.name }), ...(f.group === '' ? {} : { group: f.group }), kind: plural };
  json(res, 403, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
}

/** kube-apiserver's 401 for credentials it does not accept. */
export function kubeUnauthorized(res: http.ServerResponse): void {
  json(res, 401, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
}

/** kube-apiserver's 404 for an object that does not exist. */
export function kubeNotFound(res: http.ServerResponse, plural: string, name: string): void {
  json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${plural} ${JSON.stringify(name)} not found`, reason: 'NotFound', details: { name, kind: plural }, code: 404 });
}
