/** ownerRefs and conditions: pure helpers, and their results written to the embedded API server. */
import { describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { conditions, type Condition } from '../../src/controller/conditions.js';
import { AlreadyOwnedError, ownerRefs } from '../../src/controller/owner-references.js';
import { useEmbeddedServer } from '../helpers/embedded-server.js';

const owner = (name: string, uid: string, extra: Record<string, unknown> = {}): UnstructuredObject => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: 'ns', uid, ...extra },
});
const pod = (refs?: KubeObject['metadata']): UnstructuredObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...refs } });

describe('ownerRefs', () => {
  it('setControllerReference adds a controller reference, replaces one to the same owner, refuses a second controller', () => {
    const rs = owner('rs', 'u1');
    const p = Object.freeze(pod());
    const owned = ownerRefs.setControllerReference(rs, p);
    expect(owned.metadata?.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true, blockOwnerDeletion: true }]);
    expect(p.metadata?.ownerReferences).toBeUndefined(); // pure
    expect(ownerRefs.setControllerReference(owner('rs', 'u1'), owned)).toEqual(owned);
    expect(() => ownerRefs.setControllerReference(owner('other', 'u2'), owned)).toThrow(AlreadyOwnedError);
    expect(ownerRefs.controllerOf(owned)?.uid).toBe('u1');
    expect(ownerRefs.isControlledBy(owned, rs)).toBe(true);
    expect(ownerRefs.isControlledBy(owned, owner('x', 'u9'))).toBe(false);
  });

  it('setOwnerReference adds a plain reference and keeps an existing controller flag; removeOwnerReference drops by uid', () => {
    const a = owner('a', 'ua');
    const b = owner('b', 'ub');
    const both = ownerRefs.setOwnerReference(b, ownerRefs.setControllerReference(a, pod()));
    expect(both.metadata?.ownerReferences?.map((r) => [r.name, r.controller ?? false])).toEqual([['a', true], ['b', false]]);
    expect(ownerRefs.setOwnerReference(a, both).metadata?.ownerReferences?.[0]?.controller).toBe(true);
    expect(ownerRefs.hasOwnerReference(both, b)).toBe(true);
    const without = ownerRefs.removeOwnerReference(a, both);
    expect(without.metadata?.ownerReferences?.map((r) => r.name)).toEqual(['b']);
    expect(ownerRefs.removeOwnerReference(owner('z', 'uz'), both)).toBe(both);
  });

  it('refuses cross-namespace owners, namespaced owners of cluster objects, owners without uid', () => {
    expect(() => ownerRefs.setControllerReference(owner('rs', 'u1'), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'other' } })).toThrow(/cross-namespace/);
    expect(() => ownerRefs.setControllerReference(owner('rs', 'u1'), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } })).toThrow(/cluster-scoped/);
    expect(() => ownerRefs.setControllerReference({ metadata: { name: 'x', namespace: 'ns' } }, pod())).toThrow(/uid/);
    const typed = ownerRefs.setOwnerReference({ metadata: { name: 'x', uid: 'ux' } }, pod(), { type: { apiVersion: 'v1', kind: 'ConfigMap' } });
    expect(typed.metadata?.ownerReferences?.[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'ux' });
  });

  it('claim: owned, adopt, release, ignore (ControllerRefManager)', () => {
    const rs = owner('rs', 'u1');
    const mine = ownerRefs.setControllerReference(rs, pod());
    const theirs = ownerRefs.setControllerReference(owner('o', 'u2'), pod());
    expect(ownerRefs.claim(rs, mine, true)).toBe('owned');
    expect(ownerRefs.claim(rs, mine, false)).toBe('release');
    expect(ownerRefs.claim(owner('rs', 'u1', { deletionTimestamp: 'now' }), mine, false)).toBe('ignore');
    expect(ownerRefs.claim(rs, theirs, true)).toBe('ignore');
    expect(ownerRefs.claim(rs, pod(), true)).toBe('adopt');
    expect(ownerRefs.claim(rs, pod(), false)).toBe('ignore');
    expect(ownerRefs.claim(rs, pod({ deletionTimestamp: 'now' }), true)).toBe('ignore');
    expect(ownerRefs.claim(owner('rs', 'u1', { deletionTimestamp: 'now' }), pod(), true)).toBe('ignore');
    expect(ownerRefs.claim(rs, { metadata: { name: 'p', namespace: 'elsewhere' } }, true)).toBe('ignore');
  });
});

describe('conditions', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  it('set: appends with lastTransitionTime now; changes it only when status changes', () => {
    const one = conditions.set(undefined, { type: 'Ready', status: 'False', reason: 'Starting' }, t0);
    expect(one).toEqual([{ type: 'Ready', status: 'False', reason: 'Starting', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    const sameStatus = conditions.set(one, { type: 'Ready', status: 'False', reason: 'Waiting', observedGeneration: 2 }, t0 + 5_000);
    expect(sameStatus[0]).toEqual({ type: 'Ready', status: 'False', reason: 'Waiting', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:00:00Z' });
    const flipped = conditions.set(sameStatus, { type: 'Ready', status: 'True', reason: 'Up', observedGeneration: 2 }, t0 + 9_500);
    expect(flipped[0]?.lastTransitionTime).toBe('2026-01-01T00:00:09Z');
    expect(conditions.set(flipped, { type: 'Ready', status: 'True', reason: 'Up', observedGeneration: 2 }, t0 + 60_000)).toBe(flipped);
  });

  it('find, remove, isTrue, isFalse, of', () => {
    const list: readonly Condition[] = [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }];
    expect(conditions.find(list, 'B')?.status).toBe('False');
    expect(conditions.remove(list, 'A')).toEqual([{ type: 'B', status: 'False' }]);
    expect(conditions.remove(list, 'Z')).toBe(list);
    expect([conditions.isTrue(list, 'A'), conditions.isFalse(list, 'B'), conditions.isTrue(list, 'Z')]).toEqual([true, true, false]);
    expect(conditions.of({ status: { conditions: list } } as KubeObject)).toBe(list);
    expect(conditions.of({})).toBeUndefined();
  });
});

describe('written to the embedded API server', () => {
  let client: KubeClient;
  useEmbeddedServer((_server, c) => {
    client = c;
  });

  it('an owned ConfigMap applied with its controller reference; conditions applied to status keep their transition time', async () => {
    const spec = { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } };
    const deployments = client.objects<UnstructuredObject>({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default', { fieldManager: 'ctl' });
    const d = await deployments.apply({ metadata: { name: 'owner' }, spec });
    const cm = await client
      .objects({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default', { fieldManager: 'ctl' })
      .apply(ownerRefs.setControllerReference(d, { metadata: { name: 'owned', namespace: 'default' }, data: { k: 'v' } }));
    expect(ownerRefs.isControlledBy(cm, d)).toBe(true);
    const ready = conditions.set(conditions.of(d), { type: 'Ready', status: 'True', reason: 'Owned', observedGeneration: d.metadata?.generation }, t(0));
    const first = await deployments.applyStatus({ metadata: { name: 'owner' }, status: { conditions: ready } });
    const again = conditions.set(conditions.of(first), { type: 'Ready', status: 'True', reason: 'StillOwned', observedGeneration: 1 }, t(60));
    const second = await deployments.applyStatus({ metadata: { name: 'owner' }, status: { conditions: again } });
    expect(conditions.find(conditions.of(second), 'Ready')).toEqual({ type: 'Ready', status: 'True', reason: 'StillOwned', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' });
  });
});

function t(seconds: number): number {
  return Date.parse('2026-01-01T00:00:00Z') + seconds * 1000;
}
