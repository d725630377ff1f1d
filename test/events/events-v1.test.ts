/** events.k8s.io/v1 Events (with series) where the server serves them, core/v1 otherwise. */
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { clientEventsApi } from '../../src/events/client-events-api.js';
import { eventRecorder } from '../../src/events/event-recorder.js';
import { fromEventsV1, microTime, toEventsV1 } from '../../src/events/events-v1.js';
import type { CoreEvent } from '../../src/events/core-event.js';
import type { ApiServer } from '../../packages/testkit/src/api-server/start-api-server.js';
import { useEmbeddedServer } from '../helpers/embedded-server.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'web', uid: 'u1' } };
const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'n' } };

describe('events.k8s.io/v1 form', () => {
  const core: CoreEvent = {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' }, reason: 'Pulled', message: 'ok',
    source: { component: 'kubelet', host: 'n1' }, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:09Z',
    count: 3, type: 'Normal', reportingComponent: 'kubelet', reportingInstance: 'n1',
  };
  it('maps a core event to v1 (required fields, series for repeats) and back', () => {
    const v1 = toEventsV1(core);
    expect(v1).toEqual({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'default' },
      eventTime: '2026-01-01T00:00:00.000000Z', series: { count: 3, lastObservedTime: '2026-01-01T00:00:09.000000Z' },
      reportingController: 'kubelet', reportingInstance: 'n1', action: 'Pulled', reason: 'Pulled',
      regarding: { kind: 'Pod', name: 'web', namespace: 'default' }, note: 'ok', type: 'Normal',
    });
    expect(fromEventsV1(v1)).toMatchObject({ count: 3, firstTimestamp: core.firstTimestamp, lastTimestamp: core.lastTimestamp, message: 'ok', involvedObject: core.involvedObject });
    expect(toEventsV1({ ...core, count: 1, reportingInstance: '' }).series).toBeUndefined();
    expect(microTime('2026-01-01T00:00:00.5Z')).toBe('2026-01-01T00:00:00.500000Z');
  });
});

describe('the recorder on the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  useEmbeddedServer((s, c) => {
    server = s;
    client = c;
  });

  it('writes events.k8s.io/v1 Events where served; a repeat patches the series', async () => {
    const api = clientEventsApi(client);
    expect(await api.version()).toBe('events.k8s.io/v1');
    const recorder = eventRecorder({ api, source: { component: 'rs-controller' } });
    recorder.event(pod, 'Normal', 'SuccessfulCreate', 'Created pod: web-1', { action: 'Create', related: node });
    recorder.event(pod, 'Normal', 'SuccessfulCreate', 'Created pod: web-1', { action: 'Create', related: node });
    recorder.event(pod, 'Normal', 'SuccessfulCreate', 'Created pod: web-1', { action: 'Create', related: node });
    await recorder.flush();
    expect(server.list('v1', 'Event', 'default')).toEqual([]);
    const events = server.list('events.k8s.io/v1', 'Event', 'default');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      reportingController: 'rs-controller', reportingInstance: 'rs-controller', action: 'Create', reason: 'SuccessfulCreate',
      note: 'Created pod: web-1', type: 'Normal', regarding: { kind: 'Pod', name: 'web', uid: 'u1' }, related: { kind: 'Node', name: 'n1' },
      series: { count: 3, lastObservedTime: expect.stringMatching(/\.\d{6}Z$/) }, eventTime: expect.stringMatching(/\.\d{6}Z$/),
    });
    const patches = server.requests.filter({ method: 'PATCH' });
    expect(patches).toHaveLength(2);
    expect(patches.every((r) => r.path.startsWith('/apis/events.k8s.io/v1/namespaces/default/events/web.'))).toBe(true);
  });

  it('falls back to core/v1 where events.k8s.io/v1 is not served', async () => {
    server.faults.failNext({ method: 'GET', path: '/apis/events.k8s.io/v1', code: 404 });
    const fallback = KubeClient.fromKubeConfig(server.kubeConfig);
    const api = clientEventsApi(fallback);
    expect(await api.version()).toBe('v1');
    const recorder = eventRecorder({ api, source: { component: 'old' } });
    recorder.event(node, 'Warning', 'NodeNotReady', 'down');
    recorder.event(node, 'Warning', 'NodeNotReady', 'down');
    await recorder.flush();
    const core = server.list('v1', 'Event', 'default');
    expect(core).toHaveLength(1);
    expect(core[0]).toMatchObject({ count: 2, involvedObject: { kind: 'Node', name: 'n1' }, source: { component: 'old' } });
    fallback.close();
  });
});
