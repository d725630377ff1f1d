/** The rollout-progress example: its pipeline in virtual time on fake informers, and its scenario against the embedded API server. */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { added, deleted, fakeInformer, updated } from 'rxkube/testing';
import {
  type Deployment,
  type Progress,
  REVISION,
  type ReplicaSet,
  renderRollouts,
  rolloutProgress,
  runRolloutProgress,
} from '../../examples/rollout-progress.js';
import { marbles } from '../helpers/marbles.js';

const deployment = (name: string, revision: string, replicas: number, rv = '1'): Deployment => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv, annotations: { [REVISION]: revision } },
  spec: { replicas },
});
const replicaSet = (owner: string, revision: string, replicas: number, ready: number, rv = '1'): ReplicaSet => ({
  metadata: {
    name: `${owner}-${revision}`,
    namespace: 'default',
    uid: `uid-${owner}-${revision}`,
    resourceVersion: rv,
    annotations: { [REVISION]: revision },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, uid: `uid-${owner}`, controller: true }],
  },
  status: { replicas, readyReplicas: ready },
});
const brief = (p: Progress) => `r${p.revision} u${p.updated} ${p.ready}/${p.desired} o${p.old} ${p.phase}`;

describe('rollout-progress example', () => {
  it(
    'keyed progress per Deployment: waits for both lists, drops unchanged progress, stalls after the deadline, forgets deleted Deployments',
    marbles((m) => {
      const deployments = fakeInformer<Deployment>({
        initial: [deployment('web', '1', 3)],
        listed$: m.cold('-x'),
        events$: m.hot('-----u---------a------------------d', {
          u: updated(deployment('web', '1', 3), deployment('web', '2', 3, '2')),
          a: added(deployment('api', '1', 2)),
          d: deleted(deployment('api', '1', 2)),
        }),
      });
      const replicaSets = fakeInformer<ReplicaSet>({
        initial: [replicaSet('web', '1', 3, 3)],
        listed$: m.cold('---x'),
        events$: m.hot('-------n--s-t-r------b', {
          n: added(replicaSet('web', '2', 1, 0)),
          s: updated(replicaSet('web', '2', 1, 0), replicaSet('web', '2', 1, 0, '2')), // same progress: dropped
          t: updated(replicaSet('web', '1', 3, 3), replicaSet('web', '1', 0, 0, '2')),
          r: updated(replicaSet('web', '2', 1, 0, '2'), replicaSet('web', '2', 3, 3, '3')), // complete: cancels web's deadline
          b: added(replicaSet('api', '1', 2, 0)), // never ready: api stalls 8 frames later
        }),
      });
      const out$ = rolloutProgress(deployments, replicaSets, { deadlineMs: 8 }).pipe(
        map((c) => `${c.key}: ${c.deleted ? 'deleted' : brief(c.value)}`),
      );
      // Nothing before frame 3 (the later of the two lists).
      m.expect(out$, '^-----------------------------------!').toBeObservable('---a-b-c----d-ef-----g-------h----i-', {
        a: 'default/web: r1 u3 3/3 o0 complete',
        b: 'default/web: r2 u0 0/3 o3 progressing',
        c: 'default/web: r2 u1 0/3 o3 progressing',
        d: 'default/web: r2 u1 0/3 o0 progressing',
        e: 'default/web: r2 u3 3/3 o0 complete',
        f: 'default/api: r1 u0 0/2 o0 progressing',
        g: 'default/api: r1 u2 0/2 o0 progressing',
        h: 'default/api: r1 u2 0/2 o0 stalled',
        i: 'default/api: deleted',
      });
    }),
  );

  it('plays its scenario against the embedded API server: web rolls out, api stalls', async () => {
    const lines: string[] = [];
    const table = await runRolloutProgress({ write: (l) => lines.push(l), deadlineMs: 300 });
    expect(Object.fromEntries([...table].map(([k, p]) => [k, brief(p)]))).toEqual({
      'default/api': 'r1 u2 0/2 o0 stalled',
      'default/web': 'r2 u3 3/3 o0 complete',
    });
    const text = lines.join('\n');
    expect(text).toMatch(/default\/web +2 +2\/3 +1\/3 +1 +progressing/);
    expect(renderRollouts(table).split('\n')[0]).toBe('DEPLOYMENT   REVISION  UPDATED  READY  OLD  PHASE');
  }, 60_000);
});
