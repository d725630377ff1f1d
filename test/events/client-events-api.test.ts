/** The event recorder over real HTTP through the client's ObjectClient, against a tiny events endpoint. */
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { fetchClient } from '../../src/client/fetch-client.js';
import type { CoreEvent } from '../../src/events/core-event.js';
import { clientEventsApi } from '../../src/events/client-events-api.js';
import { eventRecorder } from '../../src/events/event-recorder.js';
import type { TestServer } from '../client/fixtures.js';
import { json, kubeConfigFor, startServer } from '../client/fixtures.js';

let server: TestServer | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
});

async function eventsServer() {
  const store = new Map<string, CoreEvent>();
  let rv = 0;
  server = await startServer((req, res) => {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/events(?:\/([^/]+))?$/.exec(req.path);
    if (!m) return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    const [, ns, name] = m;
    if (req.method === 'POST') {
      const ev = JSON.parse(req.body) as CoreEvent;
      const saved = { ...ev, metadata: { ...ev.metadata, namespace: ns ?? '', resourceVersion: String(++rv) } };
      store.set(`${ns}/${ev.metadata.name}`, saved);
      return json(res, 201, saved);
    }
    if (req.method === 'PATCH' && name) {
      const existing = store.get(`${ns}/${name}`);
      if (!existing) {
        return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'gone' });
      }
      const saved = { ...existing, ...(JSON.parse(req.body) as object), metadata: { ...existing.metadata, resourceVersion: String(++rv) } };
      store.set(`${ns}/${name}`, saved);
      return json(res, 200, saved);
    }
    return json(res, 405, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'MethodNotAllowed', code: 405 });
  });
  client = KubeClient.fromKubeConfig(kubeConfigFor(server.url));
  return { store, server };
}

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'team', name: 'web', uid: 'u1' } };

describe('clientEventsApi + eventRecorder over HTTP', () => {
  it('POSTs a new Event, merge-PATCHes repeats, and recreates one deleted meanwhile', async () => {
    const { store, server: srv } = await eventsServer();
    const recorder = eventRecorder({ api: clientEventsApi(client as KubeClient, { api: 'v1' }), source: { component: 'rs' } });
    recorder.event(pod, 'Warning', 'Failed', 'pull failed');
    recorder.event(pod, 'Warning', 'Failed', 'pull failed');
    await recorder.flush();
    expect(srv.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/namespaces/team/events',
      expect.stringMatching(/^PATCH \/api\/v1\/namespaces\/team\/events\/web\.[0-9a-f]+$/),
    ]);
    expect(srv.requests[1]?.headers['content-type']).toBe('application/merge-patch+json');
    expect(JSON.parse(srv.requests[1]?.body ?? '{}')).toEqual({ count: 2, lastTimestamp: expect.any(String), message: 'pull failed' });
    expect([...store.values()]).toHaveLength(1);
    expect([...store.values()][0]).toMatchObject({ count: 2, reason: 'Failed', involvedObject: { kind: 'Pod', name: 'web' } });

    store.clear();
    recorder.event(pod, 'Warning', 'Failed', 'pull failed');
    await recorder.flush();
    expect(srv.requests.map((r) => r.method)).toEqual(['POST', 'PATCH', 'PATCH', 'POST']);
    expect([...store.values()][0]?.count).toBe(3);
    recorder.shutdown();
  });

  it('takes a client over fetch as its api (a KubeClientBase, not only a KubeClient)', async () => {
    const { server: srv } = await eventsServer();
    const recorder = eventRecorder({ api: fetchClient({ server: srv.url }), source: { component: 'dashboard' } });
    recorder.event(pod, 'Normal', 'Viewed', 'opened in the dashboard');
    await recorder.flush();
    expect(srv.requests.map((r) => `${r.method} ${r.path}`)).toContain('POST /api/v1/namespaces/team/events');
    recorder.shutdown();
  });
});
