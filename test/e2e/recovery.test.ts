/**
 * Tier 3: how fast informers recover from faults of a real kube-apiserver (started by the shared
 * kube-apiserver scripts; KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED set by the runner).
 *
 * Three informers with default options watch ConfigMaps, each over its own connection: one on a
 * namespace, one cluster-wide, and one on the namespace through a loopback TCP proxy that the test
 * can freeze. Ten faults in a row, four kinds:
 *
 * - `restart`: kube-apiserver restarts (down 3 s, plus its own start-up), watches drop;
 * - `compact+restart`: etcd is compacted past every informer's version, then kube-apiserver
 *   restarts, so resuming watches get 410 and the informers relist;
 * - `refused`: kube-apiserver is down for 8 s, every connection is refused meanwhile;
 * - `frozen`: the proxy stops forwarding on its open connections and keeps them open (a frozen
 *   server or a dead path that still holds the TCP connection); new connections pass.
 *
 * For the first three, a writer tries to create a fresh marker ConfigMap every 100 ms from the
 * moment the server stops answering; the first create that succeeds marks "the server answers
 * again", and the marker must be in every informer's cache within 5 s of it — the 10th fault as
 * fast as the first. (Reads come back a few seconds before writes while kube-apiserver starts;
 * the report also gives each latency from the server's first HTTP answer of any kind.) For `frozen`, the marker is written right away; the proxied informer must
 * notice the silence within its idle timeout and have the marker within 5 s of noticing.
 *
 * CI form (default): the faults follow each other as soon as the previous one is over (about 3
 * minutes), and the proxied informer uses `idleTimeoutMs: 20 000` so a frozen fault takes 20 s
 * rather than 2 minutes. Long form, `RXKUBE_E2E_RECOVERY_LONG=1`: one fault a minute (10 faults
 * in 10 minutes, as on a flaky control plane) and default options everywhere (2-minute idle
 * timeout).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ApiError, isAlreadyExists } from '../../src/client/api-error.js';
import { isNetworkError } from '../../src/client/network-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { WatchStalledError } from '../../src/reflector/reflector-errors.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { compactEtcd, hasCluster, restartApiServer, sleep } from './helpers/cluster.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

const LONG = process.env.RXKUBE_E2E_RECOVERY_LONG === '1';
/**
 * `RXKUBE_E2E_RECOVERY_CLIENT_GO=1`: the informers use client-go's recovery (`sharedBackoff: true`,
 * no idle timeout) instead of the defaults, to compare; frozen faults become restarts (without an
 * idle timeout they last until the watch's own timeout, 5–10 minutes) and the target is reported,
 * not asserted.
 */
const CLIENT_GO = process.env.RXKUBE_E2E_RECOVERY_CLIENT_GO === '1';
/** Time between the starts of two faults in the long form. */
const FAULT_INTERVAL_MS = LONG ? 60_000 : 0;
/** The proxied informer's idle timeout (the default is 120 s). */
const PROXIED_IDLE_MS = LONG ? undefined : 20_000;
/** The target: a fresh write in every informer within this long of the server answering again. */
const TARGET_MS = 5_000;

type FaultKind = 'restart' | 'compact+restart' | 'refused' | 'frozen';
const FAULTS: readonly FaultKind[] = (
  [
    'restart',
    'compact+restart',
    'refused',
    'frozen',
    'restart',
    'compact+restart',
    'refused',
    'frozen',
    'restart',
    'compact+restart',
  ] as const
).map((k) => (CLIENT_GO && k === 'frozen' ? 'restart' : k));

/**
 * A loopback TCP proxy to the API server. `freeze()` stops forwarding on every connection open at
 * that moment and keeps those connections open (a black hole); connections made later pass.
 */
class FreezableProxy {
  private readonly server: net.Server;
  private readonly live = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();

  constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      const pair = { client, upstream, frozen: false };
      this.live.add(pair);
      client.on('data', (d) => {
        if (!pair.frozen) upstream.write(d);
      });
      upstream.on('data', (d) => {
        if (!pair.frozen) client.write(d);
      });
      const end = () => {
        if (pair.frozen) return; // a frozen connection stays open, silent
        this.live.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Freezes the open connections; returns how many. */
  freeze(): number {
    let n = 0;
    for (const pair of this.live) {
      if (pair.frozen) continue;
      pair.frozen = true;
      pair.client.pause();
      pair.upstream.pause();
      n += 1;
    }
    return n;
  }

  close(): void {
    for (const { client, upstream } of this.live) {
      client.destroy();
      upstream.destroy();
    }
    this.live.clear();
    this.server.close();
  }
}

/** One informer under test, with its client and what its reflector reported. */
interface Watched {
  readonly name: string;
  readonly client: KubeClient;
  readonly informer: SharedInformer<KubeObject>;
  readonly statuses: Array<{ at: number; s: ReflectorStatus }>;
  readonly subscriptions: Subscription[];
}

/** Per fault: when the server answered again, when each informer had the marker, what the reflectors did. */
interface FaultReport {
  readonly n: number;
  readonly kind: FaultKind;
  /** From the fault's start to the first successful write (ms); 0 for `frozen`. */
  readonly downMs: number;
  /** From the fault's start to the server's first HTTP answer of any kind (ms); not for `frozen`. */
  readonly firstAnswerMs?: number;
  /** Per informer: ms from the first successful write (for `frozen`: from stall detection) to the marker in its cache. */
  readonly latencyMs: Record<string, number>;
  /** `frozen`: ms from freezing to the proxied informer's stall detection. */
  readonly detectMs?: number;
  /** Per informer: relists, and the highest backoff attempt seen during the fault. */
  readonly relists: Record<string, number>;
  readonly maxAttempt: Record<string, number>;
  /** When an informer missed the target: what each reflector did during the fault (ms from its start; the write at `answeredMs`). */
  readonly timeline?: string;
}

describe.skipIf(!hasCluster)('recovery from kube-apiserver faults', () => {
  const ns = `rxkube-recovery-${randomBytes(3).toString('hex')}`;
  const other = `${ns}-other`;
  let writer: KubeClient;
  let proxy: FreezableProxy;
  const watched: Watched[] = [];

  const watch = (name: string, client: KubeClient, namespace: string | undefined, idleTimeoutMs?: number): Watched => {
    const informer = sharedInformer<KubeObject>(
      {
        client,
        resource: CONFIGMAP,
        ...(namespace !== undefined ? { scope: { namespace } } : {}),
        ...(CLIENT_GO ? { listWatch: { sharedBackoff: true, idleTimeoutMs: 0 } } : idleTimeoutMs !== undefined ? { listWatch: { idleTimeoutMs } } : {}),
      },
      { name },
    );
    const w: Watched = { name, client, informer, statuses: [], subscriptions: [] };
    w.subscriptions.push(informer.status$.subscribe((s) => w.statuses.push({ at: Date.now(), s })));
    w.subscriptions.push(informer.run$.subscribe());
    return w;
  };

  beforeAll(async () => {
    writer = KubeClient.fromDefault();
    for (const name of [ns, other]) await writer.objects(NAMESPACE).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const kc = new KubeConfig();
    kc.loadFromDefault();
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error('no cluster in KUBECONFIG');
    const server = new URL(cluster.server);
    proxy = new FreezableProxy({ host: server.hostname, port: Number(server.port) });
    const port = await proxy.listen();
    const proxied = new KubeConfig();
    proxied.loadFromOptions({
      clusters: kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: `https://127.0.0.1:${port}` } : c)),
      users: kc.users,
      contexts: kc.contexts,
      currentContext: kc.currentContext,
    });
    watched.push(
      watch('namespace', KubeClient.fromDefault(), ns),
      watch('cluster-wide', KubeClient.fromDefault(), undefined),
      watch('proxied', KubeClient.fromKubeConfig(proxied), ns, PROXIED_IDLE_MS),
    );
    for (const w of watched) expect(await w.informer.waitForSync(60_000)).toBe(true);
  });

  afterAll(async () => {
    for (const w of watched) {
      for (const s of w.subscriptions) s.unsubscribe();
      w.client.close();
    }
    proxy?.close();
    for (const name of [ns, other]) await writer?.objects(NAMESPACE).delete(name).catch(() => undefined);
    writer?.close();
  });

  /** Resolves once the API server refuses or drops requests (polls every 50 ms). */
  async function serverDown(deadline: number): Promise<void> {
    for (;;) {
      try {
        await writer.objects(CONFIGMAP, ns).list({ limit: 1, signal: AbortSignal.timeout(5_000) });
      } catch (err) {
        if (isNetworkError(err)) return;
      }
      if (Date.now() > deadline) throw new Error('kube-apiserver never went down');
      await sleep(50);
    }
  }

  /** Resolves with the time of the API server's first HTTP answer (any status) to `GET /version`, polled every 100 ms. */
  async function firstAnswer(deadline: number): Promise<number> {
    for (;;) {
      try {
        await writer.connection.request({ path: '/version' }, AbortSignal.timeout(1_000));
        return Date.now();
      } catch (err) {
        if (err instanceof ApiError) return Date.now();
        if (Date.now() > deadline) throw err;
        await sleep(100);
      }
    }
  }

  /** Creates `name` in `ns`, retrying every 100 ms; resolves with the time the create succeeded. */
  async function writeMarker(name: string, deadline: number): Promise<number> {
    for (;;) {
      try {
        await writer.objects(CONFIGMAP, ns).create({ metadata: { name }, data: { at: String(Date.now()) } }, { signal: AbortSignal.timeout(2_000) });
        return Date.now();
      } catch (err) {
        if (isAlreadyExists(err)) return Date.now();
        if (Date.now() > deadline) throw err;
        await sleep(100);
      }
    }
  }

  /** Resolves with each informer's time of first having `name` cached (polls every 20 ms). */
  async function seenBy(name: string, deadline: number): Promise<Record<string, number>> {
    const seen: Record<string, number> = {};
    const key = `${ns}/${name}`;
    while (Object.keys(seen).length < watched.length) {
      for (const w of watched) if (seen[w.name] === undefined && w.informer.store.has(key)) seen[w.name] = Date.now();
      if (Date.now() > deadline) {
        const missing = watched.filter((w) => seen[w.name] === undefined).map((w) => `${w.name}: ${describeStatus(w)}`);
        throw new Error(`marker ${name} never reached ${missing.join('; ')}`);
      }
      await sleep(20);
    }
    return seen;
  }

  async function runFault(n: number, kind: FaultKind): Promise<FaultReport> {
    const marker = `marker-${n}`;
    const start = Date.now();
    const deadline = start + 180_000;
    const marks = watched.map((w) => w.statuses.length);
    let answeredAt: number;
    let detectMs: number | undefined;
    let seen: Record<string, number>;
    /** Per informer, where its latency is measured from (the server answering again, or its stall detection). */
    const from: Record<string, number> = {};
    let firstAnswerMs: number | undefined;
    if (kind === 'frozen') {
      const frozen = proxy.freeze();
      expect(frozen).toBeGreaterThan(0);
      answeredAt = await writeMarker(marker, deadline);
      seen = await seenBy(marker, deadline);
      const proxied = watched.find((w) => w.name === 'proxied');
      const stall = proxied?.statuses.slice(marks[2]).find((x) => x.s.type === 'error' && x.s.error instanceof WatchStalledError);
      expect(stall, 'the proxied informer detected the stall').toBeDefined();
      detectMs = (stall?.at ?? start) - start;
      if (stall !== undefined) from.proxied = stall.at;
    } else {
      let fault: Promise<void>;
      if (kind === 'compact+restart') {
        // move etcd's revision past every informer's version (a Secret: no informer sees it), compact
        await writer.objects(SECRET, other).create({ metadata: { name: `bump-${n}` } });
        await compactEtcd();
        fault = restartApiServer(1);
      } else {
        fault = restartApiServer(kind === 'refused' ? 8 : 3);
      }
      fault.catch(() => undefined); // awaited below; a failed restart must not be an unhandled rejection meanwhile
      await serverDown(start + 30_000);
      const answer = firstAnswer(deadline);
      answeredAt = await writeMarker(marker, deadline);
      seen = await seenBy(marker, deadline);
      firstAnswerMs = (await answer) - start;
      await fault;
    }
    const latencyMs: Record<string, number> = {};
    for (const w of watched) latencyMs[w.name] = (seen[w.name] ?? Infinity) - (from[w.name] ?? answeredAt);
    const relists: Record<string, number> = {};
    const maxAttempt: Record<string, number> = {};
    watched.forEach((w, i) => {
      const during = w.statuses.slice(marks[i]).map((x) => x.s);
      relists[w.name] = during.filter((s) => s.type === 'listed').length;
      maxAttempt[w.name] = Math.max(0, ...during.map((s) => (s.type === 'backingOff' ? s.attempt : 0)));
    });
    const late = Object.values(latencyMs).some((ms) => ms > TARGET_MS);
    const timeline = late
      ? `write answered at +${answeredAt - start}ms\n` +
        watched
          .map((w, i) => `${w.name}:\n${w.statuses.slice(marks[i]).map((x) => `  +${x.at - start}ms ${x.s.type === 'error' ? `${(x.s.error as Error)?.name}: ${(x.s.error as Error)?.message} → ${x.s.action}` : JSON.stringify(x.s)}`).join('\n')}`)
          .join('\n')
      : undefined;
    return {
      n,
      kind,
      ...(timeline === undefined ? {} : { timeline }),
      downMs: kind === 'frozen' ? 0 : answeredAt - start,
      ...(firstAnswerMs !== undefined ? { firstAnswerMs } : {}),
      latencyMs,
      ...(detectMs !== undefined ? { detectMs } : {}),
      relists,
      maxAttempt,
    };
  }

  it(
    `a fresh write reaches every informer within ${TARGET_MS / 1000} s of the server answering again, through ${FAULTS.length} faults in a row`,
    async () => {
      const reports: FaultReport[] = [];
      const t0 = Date.now();
      for (const [i, kind] of FAULTS.entries()) {
        const due = t0 + i * FAULT_INTERVAL_MS;
        if (Date.now() < due) await sleep(due - Date.now());
        const r = await runFault(i + 1, kind);
        reports.push(r);
        console.info(`[recovery e2e] ${formatReport(r)}`);
        if (r.timeline !== undefined) console.info(`[recovery e2e] fault ${r.n} missed the target; reflector statuses:\n${r.timeline}`);
      }
      console.info(`[recovery e2e] ${FAULTS.length} faults in ${((Date.now() - t0) / 1000).toFixed(0)} s (${LONG ? 'long' : 'CI'} form${CLIENT_GO ? ', client-go recovery' : ''})`);

      // every cache equals the server's namespace contents at the end
      const server = new Set((await writer.objects(CONFIGMAP, ns).list()).items.map((o) => `${ns}/${o.metadata?.name ?? ''}`));
      for (const w of watched) {
        const cached = new Set(w.informer.store.listKeys().filter((k) => k.startsWith(`${ns}/`)));
        expect([...cached].sort(), w.name).toEqual([...server].sort());
      }
      if (CLIENT_GO) return;
      for (const r of reports) {
        for (const [name, ms] of Object.entries(r.latencyMs)) expect(ms, `fault ${r.n} (${r.kind}), ${name}`).toBeLessThanOrEqual(TARGET_MS);
        if (r.detectMs !== undefined) expect(r.detectMs, `fault ${r.n}: stall detection`).toBeLessThanOrEqual((PROXIED_IDLE_MS ?? 120_000) + 2_000);
      }
    },
    (LONG ? 15 : 8) * 60_000,
  );
});

function formatReport(r: FaultReport): string {
  const names = Object.keys(r.latencyMs);
  const lat = names.map((n) => `${n} ${((r.latencyMs[n] ?? NaN) / 1000).toFixed(2)} s`).join(', ');
  const rel = names.map((n) => `${r.relists[n] ?? 0}`).join('/');
  const att = names.map((n) => `${r.maxAttempt[n] ?? 0}`).join('/');
  const s = (ms: number | undefined) => `${((ms ?? NaN) / 1000).toFixed(1)} s`;
  const down =
    r.kind === 'frozen'
      ? `stall detected after ${s(r.detectMs)}`
      : `first answer after ${s(r.firstAnswerMs)}, first write after ${s(r.downMs)}`;
  const sinceAnswer =
    r.firstAnswerMs === undefined
      ? ''
      : ` (from the first answer: ${names.map((n) => `${(((r.latencyMs[n] ?? NaN) + r.downMs - (r.firstAnswerMs ?? 0)) / 1000).toFixed(2)} s`).join(', ')})`;
  return `fault ${r.n} ${r.kind}: ${down}; marker in cache after the write: ${lat}${sinceAnswer}; relists ${rel}; max backoff attempt ${att}`;
}

function describeStatus(w: Watched): string {
  return w.statuses
    .slice(-6)
    .map(({ s }) => (s.type === 'error' ? `error(${s.action}: ${s.error instanceof Error ? s.error.message.slice(0, 80) : String(s.error)})` : s.type === 'backingOff' ? `backingOff(${s.backoff} ${Math.round(s.delayMs)}ms)` : s.type))
    .join(' → ');
}
