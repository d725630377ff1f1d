import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { EventRecorder } from '../../src/events/event-recorder.js';
import type { ObjectReference } from '../../src/events/core-event.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { leaderElection } from '../../src/leader-election/leader-election.js';
import { LeaseLock } from '../../src/leader-election/lease-lock.js';
import { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';

interface Recorded {
  readonly object: KubeObject | ObjectReference;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

/** An EventRecorder that keeps what it was asked to record. */
function capturingRecorder(): EventRecorder & { readonly recorded: Recorded[] } {
  const recorded: Recorded[] = [];
  return {
    recorded,
    event: (object, type, reason, message) => void recorded.push({ object, type, reason, message }),
    annotatedEvent: (object, _annotations, type, reason, message) => void recorded.push({ object, type, reason, message }),
    flush: () => Promise.resolve(),
    shutdown: () => undefined,
  };
}

function world() {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  const api = new InMemoryLeaseApi({ scheduler });
  const run = (t: number) => {
    scheduler.maxFrames = t;
    scheduler.flush();
    scheduler.frame = Math.max(scheduler.frame, t);
  };
  return { scheduler, api, run };
}

const REF = { namespace: 'ops', name: 'my-operator' };

describe('leader election records LeaderElection Events on the Lease and labels it (LE-9)', () => {
  it('"<identity> became leader" on acquire, "<identity> stopped leading" on stop, on the Lease with its UID; labels on the Lease', () => {
    const { scheduler, api, run } = world();
    const recorder = capturingRecorder();
    const lock = new LeaseLock(api.client('a'), REF, 'pod-a', { labels: { 'app.kubernetes.io/name': 'my-operator' }, eventRecorder: recorder });
    const sub = leaderElection({ lock, scheduler }).state$.subscribe();
    run(1_000);
    expect(recorder.recorded.map((r) => `${r.type} ${r.reason} ${r.message}`)).toEqual(['Normal LeaderElection pod-a became leader']);
    const lease = api.peek(REF);
    expect(lease?.metadata?.labels).toEqual({ 'app.kubernetes.io/name': 'my-operator' });
    expect(recorder.recorded[0]?.object).toMatchObject({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'ops',
      name: 'my-operator',
      uid: lease?.metadata?.uid,
    });
    sub.unsubscribe();
    expect(recorder.recorded.map((r) => r.message)).toEqual(['pod-a became leader', 'pod-a stopped leading']);
  });

  it('"stopped leading" when the renew deadline passes, and nothing from a candidate that never led', () => {
    const { scheduler, api, run } = world();
    const leaderEvents = capturingRecorder();
    const waiterEvents = capturingRecorder();
    const a = leaderElection({ lock: new LeaseLock(api.client('a'), REF, 'a', { eventRecorder: leaderEvents }), scheduler }).state$.subscribe();
    run(1_000);
    const b = leaderElection({ lock: new LeaseLock(api.client('b'), REF, 'b', { eventRecorder: waiterEvents }), scheduler }).state$.subscribe();
    run(5_000);
    api.fault = (r) => (r.client === 'a' ? { kind: 'drop-request' } : undefined);
    run(14_000);
    expect(leaderEvents.recorded.map((r) => r.message)).toEqual(['a became leader', 'a stopped leading']);
    expect(waiterEvents.recorded).toEqual([]);
    a.unsubscribe();
    b.unsubscribe();
  });
});
