/**
 * A micro-harness for the embedded server's write path (not part of `npm run bench`): in one
 * process, `RXKUBE_HARNESS_MODULE` (default: today's testkit) serves; 16 HTTP clients in flight
 * POST realistic pods, then PUT each back with a changed label; then direct updates with 0/1/8
 * watch streams open. Prints ops/s. Run under `node --cpu-prof` to see where the time goes.
 */
import { Agent, request } from 'node:http';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { realisticPod } from './pods.js';

type Obj = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown> & { name?: string; namespace?: string; labels?: Record<string, string> } };
interface ServerLike {
  readonly url: string;
  get(apiVersion: string, kind: string, name: string, namespace?: string): Obj | undefined;
  update(object: Obj): unknown;
  close(): Promise<void>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function send(url: string, method: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const N = Number(process.env['RXKUBE_HARNESS_N'] ?? 2000);
const module = process.env['RXKUBE_HARNESS_MODULE'] ?? fileURLToPath(new URL('../../packages/testkit/src/index.ts', import.meta.url));
const strict = process.env['RXKUBE_HARNESS_STRICT'] !== '0';
const mod = (await import(pathToFileURL(module).href)) as { startApiServer(o: Record<string, unknown>): Promise<ServerLike> };
const server = await mod.startApiServer({ strict, historyWindow: 200_000, bookmarkIntervalMs: 3_600_000, requestLogLimit: 1000, namespaces: ['default', ...Array.from({ length: 50 }, (_, i) => `ns-${i}`)] });

const cpuUs: Record<string, number> = {};
function cpuNow(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}
async function inFlight(count: number, op: (i: number) => Promise<void>, label: string): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  const c0 = cpuNow();
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < count) await op(next++);
  }));
  cpuUs[label] = (cpuNow() - c0) / count;
  return (count / (performance.now() - t0)) * 1000;
}
const phases = (process.env['RXKUBE_HARNESS_PHASES'] ?? 'create,update,direct').split(',');
const stored: Obj[] = [];
const out: Record<string, number> = {};
out['create/s'] = await inFlight(N, async (i) => {
  const pod = realisticPod(i);
  const { uid: _u, creationTimestamp: _c, managedFields: _m, ...metadata } = pod.metadata ?? {};
  const r = await send(`${server.url}/api/v1/namespaces/${metadata.namespace}/pods`, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata, spec: pod['spec'] }));
  if (r.status !== 201) throw new Error(`create ${r.status} ${r.text.slice(0, 300)}`);
  stored[i] = JSON.parse(r.text) as Obj;
}, 'create');
if (phases.includes('update')) out['update/s'] = await inFlight(N, async (i) => {
  const cur = stored[i]!;
  const body = { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, generation: '1' } } };
  const r = await send(`${server.url}/api/v1/namespaces/${cur.metadata?.namespace}/pods/${cur.metadata?.name}`, 'PUT', JSON.stringify(body));
  if (r.status !== 200) throw new Error(`update ${r.status} ${r.text.slice(0, 300)}`);
}, 'update');
for (const watchers of phases.includes('direct') ? [0, 1, 8] : []) {
  const reqs = Array.from({ length: watchers }, () => {
    const req = request(`${server.url}/api/v1/pods?watch=true&resourceVersion=0&allowWatchBookmarks=false`, { agent: false }, (res) => res.resume());
    req.end();
    return req;
  });
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  const c0 = cpuNow();
  for (let e = 0; e < N * 2; e++) {
    const i = e % N;
    const cur = server.get('v1', 'Pod', stored[i]!.metadata!.name!, stored[i]!.metadata!.namespace);
    server.update({ ...cur, metadata: { ...cur!.metadata, labels: { ...cur!.metadata?.labels, g: String(e + watchers * 1e6) } } });
    if (e % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  out[`direct update, ${watchers} watchers/s`] = ((N * 2) / (performance.now() - t0)) * 1000;
  await new Promise((r) => setTimeout(r, 100));
  cpuUs[`direct ${watchers}`] = (cpuNow() - c0) / (N * 2);
  for (const r of reqs) r.destroy();
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v)]))));
console.log('CPU µs per op', JSON.stringify(Object.fromEntries(Object.entries(cpuUs).map(([k, v]) => [k, Math.round(v)]))));
await server.close();
agent.destroy();
