/**
 * Issue 26, finding 2 (the reconcile-context part): a server that accepts the connection and never
 * answers. The reconcile's signal flows into every call made through `ctx` without the reconcile
 * passing it, so `reconcileTimeoutMs` frees it: the hung request (and a hung discovery lookup) fails
 * with the `ReconcileTimeoutError`, and the reconcile settles.
 */
import { Registry } from 'prom-client';
import { firstValueFrom, filter, take, timeout, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import { ReconcileTimeoutError } from '../../src/workqueue/reconcile-timeout-error.js';
import { type FakeApiServer, startFakeApiServer } from './fake-api-server.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, resourceVersion: '1' } });

let server: FakeApiServer | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
});

describe('a reconcile against a server that never answers', () => {
  it('is freed by reconcileTimeoutMs: calls through ctx carry the reconcile signal (GET and discovery)', async () => {
    server = await startFakeApiServer(() => undefined); // accepts, never answers
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    const failures: Record<string, unknown> = {};
    const stop = new AbortController();
    const registry = new Registry();
    const ctrl = controller({
      metricsRegistry: registry,
      name: 'never-answers',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [cm('get'), cm('discovery')] }),
      client,
      concurrency: 2,
      reconcileTimeoutMs: 300,
      reconcile: async (req, ctx) => {
        try {
          // `discovery`: a type without plural/scope, so the client must look it up first.
          const objects = req.name === 'get' ? ctx.objects() : ctx.objects({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default');
          await objects.get(req.name);
        } catch (err) {
          failures[req.name] = err;
          throw err;
        }
      },
    });
    const outcomes = await firstValueFrom(
      ctrl.run(stop.signal).pipe(
        filter((o) => o.attempt === 1),
        take(2),
        toArray(),
        timeout({ first: 10_000 }),
      ),
    );
    stop.abort();
    expect(outcomes.map((o) => `${o.key}:${o.kind}:${o.timedOut}`).sort()).toEqual(['default/discovery:error:true', 'default/get:error:true']);
    expect(failures['get']).toBeInstanceOf(ReconcileTimeoutError);
    expect(failures['discovery']).toBeInstanceOf(ReconcileTimeoutError);
    // What was asked (a retry of `get`, due 5 ms after its timeout, may already have asked again
    // on a loaded machine before the slower `discovery` attempt reported).
    expect([...new Set(server.requests.map((r) => r.path))].sort()).toEqual(['/api/v1', '/api/v1/namespaces/default/configmaps/get']);
    // The failures are visible: the error and timeout counters moved.
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_errors_total\{controller="never-answers"\} [2-9]/);
    expect(text).toMatch(/controller_runtime_reconcile_timeouts_total\{controller="never-answers"\} [2-9]/);
  });
});
