import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { ManagerConfigError } from '../../src/manager/index.js';
import { manager } from '../../src/manager/manager.js';
import { json, kubeConfigFor, startServer } from '../client/fixtures.js';

describe('manager client and event recorders', () => {
  it('needs client or kubeConfig for mgr.client', () => {
    expect(() => manager().client).toThrow(ManagerConfigError);
    const mgr = manager({ kubeConfig: kubeConfigFor('http://127.0.0.1:1') });
    expect(mgr.client).toBeInstanceOf(KubeClient);
    expect(mgr.client).toBe(mgr.client);
    mgr.client.close();
  });

  it('getEventRecorder writes Events through the client and stops once the manager stopped', async () => {
    const server = await startServer((req, res) => {
      const ev = JSON.parse(req.body || '{}') as Record<string, unknown>;
      json(res, 201, { ...ev, metadata: { ...(ev['metadata'] as object), resourceVersion: '1' } });
    });
    const mgr = manager({ kubeConfig: kubeConfigFor(server.url) });
    const recorder = mgr.getEventRecorder('my-controller');
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    recorder.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'cm' } }, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    // Discovery (GETs) finds no events.k8s.io/v1 on this server: core/v1 Events.
    const writes = (): typeof server.requests => server.requests.filter((r) => r.method !== 'GET');
    expect(writes().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/namespaces/ns/events']);
    expect(JSON.parse(writes()[0]?.body ?? '{}')).toMatchObject({ source: { component: 'my-controller' }, reason: 'Synced' });
    ac.abort();
    await done;
    recorder.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'cm' } }, 'Normal', 'Late', 'x');
    await recorder.flush();
    expect(writes()).toHaveLength(1);
    mgr.client.close();
    await server.close();
  });

  it('writes the Events recorded while stopping before the recorders shut down', async () => {
    const server = await startServer((req, res) => {
      const ev = JSON.parse(req.body || '{}') as Record<string, unknown>;
      json(res, 201, { ...ev, metadata: { ...(ev['metadata'] as object), resourceVersion: '1' } });
    });
    const mgr = manager({ kubeConfig: kubeConfigFor(server.url) });
    const recorder = mgr.getEventRecorder('my-controller');
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'cm' } };
    mgr.add({
      needLeaderElection: false,
      start: (signal: AbortSignal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            recorder.event(object, 'Normal', 'Stopping', 'last words');
            resolve();
          }),
        ),
    });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    ac.abort();
    await done;
    const writes = server.requests.filter((r) => r.method !== 'GET'); // GETs: discovery
    expect(writes.map((r) => JSON.parse(r.body || '{}').reason)).toEqual(['Stopping']);
    mgr.client.close();
    await server.close();
  });
});

describe('default leader election', () => {
  it('needs an elector, client or kubeConfig', () => {
    expect(() => manager({ leaderElection: { id: 'l', namespace: 'ns' } })).toThrow(ManagerConfigError);
    expect(() => manager({ leaderElection: { id: 'l', namespace: 'ns' }, kubeConfig: kubeConfigFor('http://127.0.0.1:1') })).not.toThrow();
  });
});

describe('option validation', () => {
  it('rejects a non-numeric graceful shutdown timeout', () => {
    expect(() => manager({ gracefulShutdownTimeoutMs: Number.NaN })).toThrow(ManagerConfigError);
    expect(() => manager({ gracefulShutdownTimeoutMs: '5s' as unknown as number })).toThrow('gracefulShutdownTimeoutMs must be a number');
  });
});
