import { describe, expect, it } from 'vitest';
import type { K8s } from 'rxkube';
import { deploymentStatus, podTemplateHash, progressDeadlineDueMs, resolveIntOrPercent, rolloutStep } from '../src/deployment-controller.js';

const dep = (replicas: number, strategy?: K8s.Deployment['spec'] extends infer S ? (S extends { strategy?: infer T } ? T : never) : never): K8s.Deployment => ({
  metadata: { name: 'd', generation: 2 },
  spec: { replicas, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } }, ...(strategy ? { strategy } : {}) },
});
const rs = (name: string, replicas: number, available = replicas): K8s.ReplicaSet => ({ metadata: { name }, spec: { replicas, selector: {} }, status: { replicas, availableReplicas: available, readyReplicas: available } });

describe('deployment controller', () => {
  it('pod-template-hash: stable, independent of key order, in kube-safe characters', () => {
    const a = podTemplateHash({ metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    const b = podTemplateHash({ spec: { containers: [{ image: 'i', name: 'c' }] }, metadata: { labels: { a: 'b' } } });
    expect(a).toBe(b);
    expect(a).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(podTemplateHash({ spec: { containers: [{ name: 'c', image: 'j' }] } })).not.toBe(a);
  });

  it('maxSurge rounds up, maxUnavailable down; numbers stay', () => {
    expect(resolveIntOrPercent(undefined, '25%', 3, true)).toBe(1);
    expect(resolveIntOrPercent(undefined, '25%', 3, false)).toBe(0);
    expect(resolveIntOrPercent(2, '25%', 3, false)).toBe(2);
    expect(resolveIntOrPercent('50%', '25%', 5, true)).toBe(3);
  });

  it('a plain resize sets the current ReplicaSet to spec.replicas', () => {
    expect([...rolloutStep(dep(5), rs('new', 3), [])]).toEqual([['new', 5]]);
    expect([...rolloutStep(dep(1), rs('new', 3), [rs('old', 0)])]).toEqual([['new', 1]]);
  });

  it('rolling update: surge the new ReplicaSet, then scale the old one down as the new becomes available', () => {
    const d = dep(4); // maxSurge 1, maxUnavailable 1
    expect([...rolloutStep(d, rs('new', 0, 0), [rs('old', 4)])]).toEqual([['new', 1], ['old', 3]]);
    expect([...rolloutStep(d, rs('new', 2, 2), [rs('old', 2)])]).toEqual([['new', 3], ['old', 1]]);
    expect([...rolloutStep(d, rs('new', 4, 4), [rs('old', 0)])]).toEqual([]);
  });

  it('recreate: the old ReplicaSets go to zero before the new one scales up', () => {
    const d = dep(3, { type: 'Recreate' });
    expect([...rolloutStep(d, rs('new', 0, 0), [rs('old', 3)])]).toEqual([['old', 0]]);
    expect([...rolloutStep(d, rs('new', 0, 0), [{ ...rs('old', 0), status: { replicas: 1 } }])]).toEqual([]);
    expect([...rolloutStep(d, rs('new', 0, 0), [rs('old', 0)])]).toEqual([['new', 3]]);
  });

  it('status: counts over all ReplicaSets, conditions kubectl rollout status reads', () => {
    const d = dep(2);
    const done = deploymentStatus(d, [rs('new', 2)], rs('new', 2), Date.parse('2026-01-01T00:00:00Z'));
    expect(done).toMatchObject({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2, unavailableReplicas: 0 });
    expect(done.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([['Available', 'True', 'MinimumReplicasAvailable'], ['Progressing', 'True', 'NewReplicaSetAvailable']]);
    const rolling = deploymentStatus(d, [rs('new', 1, 0), rs('old', 2)], rs('new', 1, 0), 0);
    expect(rolling.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe('ReplicaSetUpdated');
  });
  it('progress deadline: no progress for progressDeadlineSeconds gives Progressing=False ProgressDeadlineExceeded; progress refreshes the clock', () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const d = { ...dep(2), spec: { ...dep(2).spec!, progressDeadlineSeconds: 60 } };
    const stuck = [rs('new', 1, 0), rs('old', 2)];
    const first = deploymentStatus(d, stuck, rs('new', 1, 0), t0);
    const cond = (s: NonNullable<K8s.Deployment['status']>) => s.conditions?.find((c) => c.type === 'Progressing');
    expect(cond(first)).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: '2026-01-01T00:00:00Z' });
    expect(progressDeadlineDueMs(d, cond(first))).toBe(t0 + 60_000);
    const seen = { ...d, status: first };
    // Nothing changed: the condition keeps its time until the deadline passes.
    expect(cond(deploymentStatus(seen, stuck, rs('new', 1, 0), t0 + 59_000))).toEqual(cond(first));
    const late = deploymentStatus(seen, stuck, rs('new', 1, 0), t0 + 61_000);
    expect(cond(late)).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "new" has timed out progressing.' });
    expect(progressDeadlineDueMs(d, cond(late))).toBe(Infinity);
    // A replica becoming available is progress: True again, deadline counted from now.
    const moved = deploymentStatus({ ...d, status: late }, [rs('new', 1, 1), rs('old', 2)], rs('new', 1, 1), t0 + 70_000);
    expect(cond(moved)).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated', lastUpdateTime: '2026-01-01T00:01:10Z' });
    // Progress before the deadline moves it too.
    const early = deploymentStatus(seen, [rs('new', 1, 1), rs('old', 2)], rs('new', 1, 1), t0 + 30_000);
    expect(progressDeadlineDueMs(d, cond(early))).toBe(t0 + 90_000);
    // A finished rollout has no deadline; 2147483647 means none.
    expect(progressDeadlineDueMs(d, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', lastUpdateTime: '2026-01-01T00:00:00Z' })).toBe(Infinity);
    expect(progressDeadlineDueMs({ ...d, spec: { ...d.spec, progressDeadlineSeconds: 2147483647 } }, cond(first))).toBe(Infinity);
  });
});
