/**
 * A manager serving webhooks: the webhook server takes the manager's registry (its metrics appear
 * on `/metrics`), its started check backs `/healthz` and `/readyz` (`webhook`), and `mgr.webhooks()`
 * lists what the manager serves, for the manifests.
 */
import { get } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { generateTlsMaterial } from '../../packages/testkit/src/index.js';
import { manager } from '../../src/manager/manager.js';
import { webhookServer } from '../../src/webhook/index.js';
import { databaseWebhooks, validateDatabase } from '../../examples/custom-resource/database-webhooks.js';

function fetchText(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('manager with a webhook server', () => {
  it('serves the webhooks, reports them in /healthz and /readyz and /metrics, and lists them', async () => {
    const tls = await generateTlsMaterial();
    const server = webhookServer({ port: 0, host: '127.0.0.1', tls: { cert: tls.cert, key: tls.key }, webhooks: databaseWebhooks });
    const mgr = manager({ health: { port: 0, host: '127.0.0.1', cacheSyncCheck: false }, metrics: { port: 0, host: '127.0.0.1' }, logLevel: 'off', processMetrics: false });
    mgr.add(server);
    expect(mgr.webhooks().map((w) => w.path)).toEqual(['/mutate-example-com-v1-database', '/validate-example-com-v1-database', '/convert']);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const { port } = (await server.listening) as AddressInfo;
      const health = (await mgr.healthAddress()).port;
      expect(await fetchText(health, '/healthz?verbose')).toEqual({ status: 200, body: '[+]webhook ok\nhealthz check passed\n' });
      expect((await fetchText(health, '/readyz/webhook')).body).toBe('ok');
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid: 'x',
          kind: { group: 'example.com', version: 'v1', kind: 'Database' },
          resource: { group: 'example.com', version: 'v1', resource: 'databases' },
          operation: 'CREATE',
          userInfo: {},
          object: { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'd' }, spec: {} },
        },
      });
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: validateDatabase.path, method: 'POST', ca: tls.ca, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(JSON.parse(answer).response.status.message).toBe('spec.team is required: every database belongs to a team');
      const metrics = await fetchText((await mgr.metricsAddress()).port, '/metrics');
      expect(metrics.body).toContain(`controller_runtime_webhook_requests_total{webhook="${validateDatabase.path}",code="200"} 1`);
      expect(metrics.body).toContain(`rxkube_webhook_denials_total{webhook="${validateDatabase.path}"} 1`);
      expect(metrics.body).toContain(`controller_runtime_webhook_requests_in_flight{webhook="${validateDatabase.path}"} 0`);
    } finally {
      stop.abort();
      await running;
    }
    await expect(server.startedCheck()).rejects.toThrow(/TLS handshake failed|did not complete/);
  });
});
