/**
 * Child-process script for the memory test (run with `--expose-gc`): repeated start/stop cycles,
 * each of an embedded API server, a client, a shared informer with three subscribers and a
 * controller run by a manager (health server on); prints `{ warm, end, cycles }` heap sizes
 * (bytes, after full GCs) as JSON. Argument `leak` keeps every informer reachable (the negative
 * control).
 */
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { controller } from '../../src/controller/controller.js';
import { informerSource } from '../../src/controller/informer-source.js';
import { manager } from '../../src/manager/manager.js';
import { cacheRunnable } from '../../src/api/runnable.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { startApiServer } from '@rxkube/testkit';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const leak = process.argv.includes('leak');
const cycles = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? '120');
const kept: SharedInformer[] = [];

async function heap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 2));
}

const objects = Array.from({ length: 200 }, (_, i): UnstructuredObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'default' }, data: { v: 'x'.repeat(200) } }));

async function cycle(): Promise<void> {
  const server = await startApiServer({ bookmarkIntervalMs: 50 });
  server.seed(objects);
  const mgr = manager({ kubeConfig: server.kubeConfig, health: { port: 0 }, gracefulShutdownTimeoutMs: 5_000 });
  const informer = sharedInformer({ client: mgr.client, resource: { apiVersion: 'v1', kind: 'ConfigMap' }, scope: { namespace: 'default' } });
  mgr.add(cacheRunnable({ name: 'configmaps', source: informer.run$, synced$: informer.synced$ }));
  const subs = [0, 1, 2].map((i) => informer.listen({ name: `s${i}` }).events$.subscribe());
  let reconciles = 0;
  mgr.add(
    controller({
      name: 'memory-cycle',
      skipNameValidation: true,
      for: informerSource(informer, { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }),
      reconcile: () => void reconciles++,
    }),
  );
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  await until(() => reconciles >= 200);
  stop.abort();
  await done;
  for (const s of subs) s.unsubscribe();
  await until(() => !informer.isRunning && server.openWatches() === 0);
  mgr.client.close();
  await server.close();
  if (leak) kept.push(informer as SharedInformer);
}

const warmCycles = Math.min(20, Math.floor(cycles / 4));
for (let i = 0; i < warmCycles; i++) await cycle();
const warm = await heap();
for (let i = warmCycles; i < cycles; i++) await cycle();
const end = await heap();
console.log(JSON.stringify({ warm, end, cycles, kept: kept.length }));
