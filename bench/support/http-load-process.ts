/**
 * The HTTP side of the API server benchmark, in a process of its own: lists read to their last
 * byte (not parsed), watch streams whose events are counted by their newlines (not parsed), and
 * creates with a fixed number of requests in flight. node:http with keep-alive, plain loopback.
 */
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { realisticPod } from './pods.js';
import { serveCommands } from './rpc.js';

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** The cluster of `KUBECONFIG` (TLS and credentials from it), once `kube` has been called. */
let kube: { url: string; options: RequestOptions; agent: HttpsAgent } | undefined;

function request(url: string, options: RequestOptions, onResponse: (res: IncomingMessage) => void): ClientRequest {
  if (kube !== undefined && url.startsWith(kube.url)) {
    const headers = { ...(kube.options.headers as Record<string, string> | undefined), ...(options.headers as Record<string, string> | undefined) };
    return httpsRequest(url, { ...kube.options, ...options, headers, agent: options.agent === false ? false : kube.agent }, onResponse);
  }
  return httpRequest(url, options, onResponse);
}

function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; bytes: number; firstByteMs: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      let bytes = 0;
      let firstByteMs = Number.NaN;
      res.on('data', (c: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - t0;
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, firstByteMs, ms: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A GET's status and parsed JSON body. */
function receive(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent, headers: { Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Pods read by `readForUpdate`, PUT back by `update`. */
let toUpdate: unknown[] = [];

interface Watcher {
  req: ClientRequest;
  count: number;
  first: number;
  last: number;
}
let watchers: Watcher[] = [];
let expected = 0;
let done: (() => void) | undefined;

function checkDone(): void {
  if (done !== undefined && watchers.every((w) => w.count >= expected)) {
    const d = done;
    done = undefined;
    d();
  }
}

serveCommands({
  /** Loads `KUBECONFIG`'s current context; answers the cluster's URL (requests to it use its TLS and credentials). */
  async kube() {
    const kc = new KubeConfig();
    kc.loadFromDefault();
    const url = kc.getCurrentCluster()?.server ?? '';
    if (url === '') throw new Error('KUBECONFIG has no current cluster');
    const options: RequestOptions & { ca?: unknown; cert?: unknown; key?: unknown; rejectUnauthorized?: boolean } = {};
    await kc.applyToHTTPSOptions(options as never);
    kube = { url, options, agent: new HttpsAgent({ keepAlive: true, maxSockets: 256, ...(options as object) }) };
    return { url };
  },
  /** Creates namespaces (an existing one is fine). */
  async namespaces(args: { url: string; names: string[] }) {
    for (const name of args.names) {
      const r = await send(`${args.url}/api/v1/namespaces`, 'POST', { Accept: 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
      if (r.status !== 201 && r.status !== 409) throw new Error(`namespace ${name}: HTTP ${r.status}`);
    }
    return null;
  },
  /** Deletes namespaces (best effort). */
  async deleteNamespaces(args: { url: string; names: string[] }) {
    for (const name of args.names) await send(`${args.url}/api/v1/namespaces/${name}`, 'DELETE', { Accept: 'application/json' }).catch(() => undefined);
    return null;
  },
  /** One GET of `path`, read to the last byte. */
  async list(args: { url: string; path: string; accept: string }) {
    const r = await send(`${args.url}${args.path}`, 'GET', { Accept: args.accept });
    if (r.status !== 200) throw new Error(`list ${args.path}: HTTP ${r.status}`);
    return r;
  },
  /** Opens `n` watches of `path` from `resourceVersion`; resolves once all have their headers. */
  async watch(args: { url: string; path: string; n: number; resourceVersion: number; expect: number }) {
    expected = args.expect;
    const open: Promise<void>[] = [];
    watchers = [];
    for (let i = 0; i < args.n; i++) {
      const w: Watcher = { req: undefined as unknown as ClientRequest, count: 0, first: Number.NaN, last: Number.NaN };
      open.push(
        new Promise((resolve, reject) => {
          w.req = request(`${args.url}${args.path}?watch=true&resourceVersion=${args.resourceVersion}`, { agent: false, headers: { Accept: 'application/json' } }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`watch: HTTP ${res.statusCode}`));
            resolve();
            res.on('data', (c: Buffer) => {
              const now = performance.now();
              if (w.count === 0) w.first = now;
              for (let at = c.indexOf(10); at !== -1; at = c.indexOf(10, at + 1)) w.count++;
              w.last = now;
              if (w.count >= expected) checkDone();
            });
            res.on('error', () => undefined);
          });
          w.req.on('error', () => undefined);
          w.req.end();
        }),
      );
      watchers.push(w);
    }
    await Promise.all(open);
    return null;
  },
  /** Waits until every watcher has its events; closes them. Per watcher: events/s from its first event to its last. */
  async waitWatch(args: { timeoutMs: number }) {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`watchers got ${watchers.map((w) => w.count).join(', ')} of ${expected} events`)), args.timeoutMs);
      done = () => {
        clearTimeout(t);
        resolve();
      };
      checkDone();
    });
    const out = watchers.map((w) => ({ events: w.count, ms: w.last - w.first }));
    const first = Math.min(...watchers.map((w) => w.first));
    const last = Math.max(...watchers.map((w) => w.last));
    for (const w of watchers) w.req.destroy();
    watchers = [];
    return { perWatcher: out, ms: last - first };
  },
  /** POSTs `count` realistic pods (numbers `from` …, no status or server-set metadata), `inflight` at a time. */
  async create(args: { url: string; from: number; count: number; inflight: number }) {
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < args.count) {
        const pod = realisticPod(args.from + next++);
        const { uid: _uid, creationTimestamp: _ts, managedFields: _mf, ...metadata } = pod.metadata ?? {};
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata, spec: pod['spec'] });
        const r = await send(`${args.url}/api/v1/namespaces/${metadata.namespace ?? 'default'}/pods`, 'POST', { Accept: 'application/json' }, body);
        if (r.status !== 201) throw new Error(`create: HTTP ${r.status}`);
      }
    };
    await Promise.all(Array.from({ length: args.inflight }, worker));
    return { ms: performance.now() - t0 };
  },
  /** GETs pods number `from` … (as created by `create`), `inflight` at a time, and keeps them for `update`. */
  async readForUpdate(args: { url: string; from: number; count: number; inflight: number }) {
    toUpdate = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < args.count) {
        const { name, namespace } = realisticPod(args.from + next++).metadata ?? {};
        const r = await receive(`${args.url}/api/v1/namespaces/${namespace ?? 'default'}/pods/${name ?? ''}`);
        if (r.status !== 200) throw new Error(`get for update: HTTP ${r.status}`);
        toUpdate.push(r.body);
      }
    };
    await Promise.all(Array.from({ length: args.inflight }, worker));
    return null;
  },
  /**
   * PUTs back every pod `readForUpdate` kept, with a label and an annotation changed (a
   * read-modify-write, resourceVersion included), `inflight` at a time.
   */
  async update(args: { url: string; inflight: number; gen: number }) {
    const bodies = toUpdate;
    toUpdate = [];
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < bodies.length) {
        const pod = bodies[next++] as { metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
        const g = String(args.gen);
        const body = JSON.stringify({ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, generation: g }, annotations: { ...pod.metadata.annotations, 'example.com/generation': g } } });
        const r = await send(`${args.url}/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`, 'PUT', { Accept: 'application/json' }, body);
        if (r.status !== 200) throw new Error(`update: HTTP ${r.status}`);
      }
    };
    await Promise.all(Array.from({ length: args.inflight }, worker));
    return { ms: performance.now() - t0, count: bodies.length };
  },
});
