/** The event recorder against the embedded API server (tier 2: real HTTP, real storage). */
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import type { CoreEvent } from '../../src/events/core-event.js';
import { COMBINED_EVENT_PREFIX } from '../../src/events/event-correlator.js';
import { clientEventsApi } from '../../src/events/client-events-api.js';
import { eventRecorder } from '../../src/events/event-recorder.js';
import type { ApiServer } from '@rxkube/testkit';
import { startApiServer } from '@rxkube/testkit';

let server: ApiServer | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
});

describe('eventRecorder against the embedded API server', () => {
  it('stores one Event per distinct event, counts repeats, and combines similar ones', async () => {
    server = await startApiServer({ token: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    const pod = server.create({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
    const recorder = eventRecorder({ api: clientEventsApi(client, { api: 'v1' }), source: { component: 'rs-controller' } });
    recorder.event(pod, 'Normal', 'Scheduled', 'assigned to node-1');
    for (let i = 0; i < 4; i++) recorder.event(pod, 'Warning', 'BackOff', 'back-off restarting');
    for (let i = 0; i < 11; i++) recorder.event(pod, 'Warning', 'Unhealthy', `probe failed #${i}`);
    await recorder.flush();
    const events = server.list('v1', 'Event', 'default') as unknown as CoreEvent[];
    const byReason = (r: string) => events.filter((e) => e.reason === r);
    expect(byReason('Scheduled')).toHaveLength(1);
    expect(byReason('BackOff')).toHaveLength(1);
    expect(byReason('BackOff')[0]).toMatchObject({ count: 4, type: 'Warning', involvedObject: { kind: 'Pod', name: 'web', uid: pod.metadata?.uid } });
    const unhealthy = byReason('Unhealthy');
    expect(unhealthy).toHaveLength(10);
    expect(unhealthy.filter((e) => e.message.startsWith(COMBINED_EVENT_PREFIX)).map((e) => e.count)).toEqual([2]);
    // 1 + 1 + 10 distinct Events were created; 3 BackOff repeats and 1 combined repeat were patches.
    expect(server.requests.count({ method: 'POST' })).toBe(12);
    expect(server.requests.count({ method: 'PATCH' })).toBe(4);
    recorder.shutdown();
  });
});
