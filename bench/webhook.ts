/**
 * Admission webhook throughput and latency: a trivial validating webhook (allows everything)
 * served by rxkube's webhook server, side by side with a plain `node:https` handler doing the same
 * work (read the body, parse the AdmissionReview, answer `allowed: true` with its uid): the floor.
 * Both use the same certificate, the same keep-alive client (in this process, 32 requests in
 * flight) and the same review; the two run alternately, and each figure is the median of RUNS
 * runs of DURATION_MS.
 * Run: `npx tsx --conditions=source bench/webhook.ts`.
 */
import { createServer, Agent, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { generateTlsMaterial, type TlsMaterial } from '../packages/testkit/src/index.js';
import { allow, validatingWebhook, webhookServer } from '../src/webhook/index.js';

const RUNS = Number(process.env.WEBHOOK_BENCH_RUNS ?? 3);
const DURATION_MS = Number(process.env.WEBHOOK_BENCH_MS ?? 3_000);
const IN_FLIGHT = 32;

const REVIEW = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '7f0b2a3c-0000-4000-8000-000000000001',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    namespace: 'default',
    name: 'bench',
    operation: 'CREATE',
    userInfo: { username: 'admin', groups: ['system:masters'] },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench', namespace: 'default', labels: { app: 'bench' } }, data: { key: 'x'.repeat(512) } },
    dryRun: false,
  },
});

interface Result {
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Keeps IN_FLIGHT requests going for DURATION_MS; returns requests/s and latency percentiles. */
async function load(port: number, path: string, ca: string): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca });
  const latencies: number[] = [];
  const end = performance.now() + DURATION_MS;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => {
          if (res.statusCode !== 200 || n === 0) reject(new Error(`status ${String(res.statusCode)}`));
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', reject);
      req.end(REVIEW);
    });
  const worker = async (): Promise<void> => {
    while (performance.now() < end) await one();
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** The floor: the same work in a bare `node:https` handler. */
function plainServer(tls: TlsMaterial): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: { uid: string } };
      const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

/** Runs the two alternately (after a warm-up of each), so a noisy machine weighs on both alike. */
async function paired(a: () => Promise<Result>, b: () => Promise<Result>): Promise<[{ median: Result; runs: Result[] }, { median: Result; runs: Result[] }]> {
  await a();
  await b();
  const ra: Result[] = [];
  const rb: Result[] = [];
  for (let i = 0; i < RUNS; i++) {
    ra.push(await a());
    rb.push(await b());
  }
  const med = (runs: Result[]) => ({ median: [...runs].sort((x, y) => x.perSecond - y.perSecond)[Math.floor(runs.length / 2)] as Result, runs });
  return [med(ra), med(rb)];
}

export async function run(): Promise<string[]> {
  const tls = await generateTlsMaterial();
  const trivial = validatingWebhook({ resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }, validate: () => allow() });
  const rxkube = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: [trivial] });
  const stop = new AbortController();
  const serving = rxkube.start(stop.signal);
  const rxPort = ((await rxkube.listening) as AddressInfo).port;
  const plain = await plainServer(tls);
  const fmt = (name: string, r: { median: Result; runs: Result[] }): string => {
    const rates = r.runs.map((x) => Math.round(x.perSecond)).sort((a, b) => a - b);
    return `${name.padEnd(40)} ${Math.round(r.median.perSecond).toLocaleString('en-US').padStart(8)} req/s  p50 ${r.median.p50Ms.toFixed(2)} ms  p99 ${r.median.p99Ms.toFixed(2)} ms  (runs: ${rates.join(', ')} req/s)`;
  };
  try {
    const [floor, ours] = await paired(() => load(plain.port, '/validate', tls.ca), () => load(rxPort, trivial.path, tls.ca));
    return [
      `Trivial admission webhook over HTTPS (keep-alive, ${IN_FLIGHT} in flight, ${DURATION_MS / 1000} s × ${RUNS} runs each, alternating, median run):`,
      fmt('plain node:https handler (floor)', floor),
      fmt('rxkube webhookServer + validatingWebhook', ours),
      `rxkube / floor: ${((ours.median.perSecond / floor.median.perSecond) * 100).toFixed(0)} % of the throughput`,
    ];
  } finally {
    stop.abort();
    await serving;
    await new Promise<void>((r) => plain.server.close(() => r()));
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
