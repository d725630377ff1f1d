/**
 * Operable by default: a controller added to a manager with no options logs through the manager's
 * default logger, and `/metrics` carries reconcile, workqueue, reflector, REST client and process
 * metrics — against the embedded API server over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { manager } from '../../src/manager/manager.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('a controller added to a manager with no options', () => {
  let server: ApiServer;
  let client: KubeClient;
  const lines: string[] = [];
  let metricsText = '';
  let readyzBody = '';

  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    // The default logger writes to stderr at RXKUBE_LOG's level (the test config silences it).
    const env = process.env['RXKUBE_LOG'];
    process.env['RXKUBE_LOG'] = 'info,text';
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const factory = new InformerFactory(client, { namespace: 'default' });
      const seen: string[] = [];
      const ctrl = controller({
        name: 'operable-cm',
        for: CONFIG_MAPS,
        informers: factory,
        reconcile: (req, ctx) => {
          ctx.logger.info('reconciling', { name: req.name });
          seen.push(req.name);
          if (req.name === 'bad' && seen.filter((n) => n === 'bad').length === 1) throw new Error('first try fails');
        },
      });
      const mgr = manager({ client, metrics: { host: '127.0.0.1', port: 0 }, health: { host: '127.0.0.1', port: 0 } });
      mgr.add(factory.runnable());
      mgr.add(ctrl);
      const stop = new AbortController();
      const done = mgr.start(stop.signal);
      const { port } = await mgr.metricsAddress();
      const health = await mgr.healthAddress();
      await mgr.elected();
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'good', namespace: 'default' } });
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', namespace: 'default' } });
      await until('two reconciles of bad', () => (seen.filter((n) => n === 'bad').length >= 2 ? true : undefined));
      metricsText = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      readyzBody = await (await fetch(`http://127.0.0.1:${health.port}/readyz?verbose`)).text();
      stop.abort();
      await done;
    } finally {
      write.mockRestore();
      if (env === undefined) delete process.env['RXKUBE_LOG'];
      else process.env['RXKUBE_LOG'] = env;
    }
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('logs readable lines: start, caches synced with counts, workers, the reconcile logger, reconcile errors, shutdown', () => {
    const text = lines.join('');
    expect(text).toMatch(/INFO {2}Starting manager/);
    expect(text).toMatch(/INFO {2}caches synced informers=1 objects=\d+ durationMs=\d+/);
    expect(text).toMatch(/INFO {2}Starting workers controller=operable-cm workerCount=1/);
    expect(text).toMatch(/INFO {2}reconciling controller=operable-cm object=default\/good reconcileID=\S+ name=good/);
    expect(text).toMatch(/ERROR Reconciler error controller=operable-cm object=default\/bad err="first try fails"/);
    expect(text).toMatch(/INFO {2}manager stopped uptimeMs=\d+/);
  });

  it('serves controller-runtime, workqueue, reflector, REST client and process metrics on /metrics', () => {
    const sample = (re: RegExp): number => {
      const m = re.exec(metricsText);
      return m === null ? Number.NaN : Number(m[1]);
    };
    expect(sample(/^controller_runtime_reconcile_total\{controller="operable-cm",result="success"\} (\d+)/m)).toBeGreaterThanOrEqual(2);
    expect(sample(/^controller_runtime_reconcile_errors_total\{controller="operable-cm"\} (\d+)/m)).toBe(1);
    expect(metricsText).toMatch(/^controller_runtime_reconcile_time_seconds_count\{controller="operable-cm"\} \d+/m);
    expect(sample(/^workqueue_adds_total\{name="operable-cm",controller="operable-cm"\} (\d+)/m)).toBeGreaterThanOrEqual(3);
    expect(metricsText).toMatch(/^workqueue_retries_total\{name="operable-cm",controller="operable-cm"\} [1-9]/m);
    expect(sample(/^reflector_lists_total\{name="ConfigMap\/default"\} (\d+)/m)).toBeGreaterThanOrEqual(1);
    expect(sample(/^reflector_watches_total\{name="ConfigMap\/default"\} (\d+)/m)).toBeGreaterThanOrEqual(1);
    expect(sample(/^rest_client_requests_total\{code="200",host="127\.0\.0\.1:\d+",method="GET"\} (\d+)/m)).toBeGreaterThanOrEqual(1); // the streaming list (one GET) at least
    expect(metricsText).toMatch(/^rest_client_request_duration_seconds_count\{verb="GET",host="127\.0\.0\.1:\d+"\} \d+/m);
    expect(metricsText).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(metricsText).toMatch(/^process_resident_memory_bytes \d/m);
    expect(metricsText).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(metricsText).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('is ready once the caches synced', () => {
    expect(readyzBody).toBe('[+]cache-sync ok\n[+]informers ok\nhealthz check passed\n');
  });
});
