import { timer, type Subscription } from 'rxjs';
import type { UnstructuredObject } from '../src/api/kube-object.js';
import { startApiServer } from '@rxkube/testkit';
import type { SoakBackend, SoakFault } from './soak-backend.js';

/** Options of {@link embeddedBackend}. */
export interface EmbeddedBackendOptions {
  readonly namespace?: string;
  /** Changes the server keeps; small values cause natural 410s. */
  readonly historyWindow: number;
  /** Objects created before the informers start. */
  readonly initial: readonly UnstructuredObject[];
}

/**
 * The embedded API server as a soak backend, with every fault it can inject: dropped watches
 * (clean and abrupt), 410 ERROR events, compaction (alone and with dropped watches), 500/503/429
 * bursts, latency, frozen watches, restarts, and watches that end after a few events.
 */
export async function embeddedBackend(options: EmbeddedBackendOptions): Promise<SoakBackend> {
  const ns = options.namespace ?? 'soak';
  const server = await startApiServer({ namespaces: ['default', ns], bookmarkIntervalMs: 100, historyWindow: options.historyWindow });
  server.seed(options.initial.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: ns } })));
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  let restarting: Promise<void> | undefined;
  let clearTimer: Subscription | undefined;
  const clearLater = (ms: number): void => {
    clearTimer?.unsubscribe();
    clearTimer = timer(ms).subscribe(() => {
      clearTimer = undefined;
      server.faults.clear();
    });
  };
  const n = (rand: () => number, max: number): number => 1 + Math.floor(rand() * max);
  const faults: SoakFault[] = [
    { kind: 'dropWatch', fire: () => void server.faults.dropWatches() },
    { kind: 'dropWatchAbrupt', fire: () => void server.faults.dropWatches({ abrupt: true }) },
    { kind: 'watchError410', fire: () => void server.faults.injectWatchError({ code: 410, reason: 'Expired', message: 'too old resource version (injected)' }) },
    { kind: 'compact', fire: () => server.faults.compact() },
    { kind: 'compactAndDrop', fire: () => {
      server.faults.compact();
      server.faults.dropWatches();
    } },
    { kind: 'burst500', fire: (r) => server.faults.failNext({ path, code: 500, count: n(r, 5) }) },
    { kind: 'burst503', fire: (r) => server.faults.failNext({ path, code: 503, count: n(r, 5) }) },
    { kind: 'burst429', fire: (r) => server.faults.failNext({ path, code: 429, count: n(r, 5), retryAfterSeconds: r() < 0.5 ? 0 : 1 }) },
    { kind: 'latency', fire: (r) => {
      server.faults.latency(20 + Math.floor(r() * 200), { path });
      clearLater(500 + r() * 1500);
    } },
    { kind: 'freeze', fire: (r) => {
      server.faults.freezeWatches();
      clearLater(300 + r() * 3000);
    } },
    { kind: 'restart', fire: (r) => {
      restarting ??= server.faults.restart(Math.floor(r() * 300)).finally(() => {
        restarting = undefined;
      });
    } },
    { kind: 'dropAfter', fire: (r) => server.faults.dropWatchAfter(5 + Math.floor(r() * 50), { count: 2 }) },
  ];
  return {
    name: 'embedded API server',
    kubeConfig: server.kubeConfig,
    namespace: ns,
    list: () => Promise.resolve(server.list('v1', 'ConfigMap', ns)),
    get: (name) => Promise.resolve(server.get('v1', 'ConfigMap', name, ns)),
    create: (o) => Promise.resolve(void server.create({ ...o, metadata: { ...o.metadata, namespace: ns } })),
    update: (o) => Promise.resolve(void server.update(o)),
    delete: (name) => Promise.resolve(void server.delete('v1', 'ConfigMap', name, ns)),
    faults,
    async clearFaults() {
      clearTimer?.unsubscribe();
      clearTimer = undefined;
      await restarting;
      server.faults.clear();
    },
    openWatches: () => server.openWatches(),
    watchRequests: () => server.requests.count({ resourceId: '/configmaps', watch: true }),
    async close() {
      clearTimer?.unsubscribe();
      await restarting;
      await server.close();
    },
  };
}
