import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { Joined } from '../../src/informer/join.js';
import { joinOn, whenSynced } from '../../src/informer/sync-aware.js';
import { added, updated } from '../../src/testing/controller-harness.js';
import { fakeInformer } from '../../src/testing/fake-informer.js';
import { marbles } from '../helpers/marbles.js';

type Pod = KubeObject & { spec?: { nodeName?: string } };
const pod = (name: string, nodeName: string): Pod => ({ metadata: { name, namespace: 'ns', resourceVersion: '1' }, spec: { nodeName } });
const node = (name: string): KubeObject => ({ metadata: { name, resourceVersion: '1' } });

const deployment = (name: string, rv = '1'): KubeObject => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv } });
const replicaSet = (name: string, owner: string): KubeObject => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, uid: `uid-${owner}` }] },
});
const uidOf = (o: KubeObject) => [o.metadata?.uid ?? ''];
const ownersOf = (o: KubeObject) => (o.metadata?.ownerReferences ?? []).map((r) => r.uid);
const show = (j: Joined<KubeObject, KubeObject>) =>
  `${j.left?.metadata?.name}@${j.left?.metadata?.resourceVersion}:${j.right.map((r) => r.metadata?.name).sort().join(',')}`;

describe('whenSynced', () => {
  it(
    'holds a pipeline until every informer has its initial list (marble of its doc)',
    marbles((m) => {
      const pods = fakeInformer<Pod>({ name: 'pods', initial: [pod('p1', 'n1')], listed$: m.cold('---x') });
      const nodes = fakeInformer<KubeObject>({ name: 'nodes', initial: [node('n1')], listed$: m.cold('-----x') });
      // How many nodes the pipeline sees when it handles each pod event.
      const seen = (e: { object: unknown }) => `${(e.object as Pod).metadata?.name}:${nodes.store.size}`;
      m.expect(pods.events$.pipe(map(seen)), '^-------!').toBeObservable('---a----', { a: 'p1:0' }); // too early
      m.expect(pods.events$.pipe(map(seen), whenSynced(pods, nodes)), '^-------!').toBeObservable('-----a--', { a: 'p1:1' });
    }),
  );

  it(
    'keeps the informers running while subscribed and releases them after',
    marbles((m) => {
      const pods = fakeInformer<Pod>({ initial: [pod('p1', 'n1')], listed$: m.cold('--x') });
      const sub = pods.events$.pipe(whenSynced(pods)).subscribe();
      m.flush();
      expect(pods.watching).toBe(true);
      expect(pods.starts).toBe(1);
      sub.unsubscribe();
      expect(pods.watching).toBe(false);
    }),
  );

  it(
    'with no informer it is the identity; an informer failure errors the pipeline',
    marbles((m) => {
      const src = m.cold('-a|');
      m.expect(src.pipe(whenSynced())).toBeObservable('-a|');
      const error = new Error('list failed');
      const failing = fakeInformer<Pod>({ listed$: m.cold('--#', undefined, error) });
      m.expect(m.cold('a').pipe(whenSynced(failing))).toBeObservable('--#', undefined, error);
    }),
  );
});

describe('joinOn', () => {
  it(
    'Deployments ⋈ ReplicaSets: nothing until both synced, then every left object once, then live (marble of its doc)',
    marbles((m) => {
      const deployments = fakeInformer({
        name: 'deployments',
        initial: [deployment('d1'), deployment('d2')],
        listed$: m.cold('--x'),
        events$: m.hot('-------------u', { u: updated(deployment('d2'), deployment('d2', '2')) }),
      }).withIndex('uid', uidOf);
      const replicaSets = fakeInformer({
        name: 'replicasets',
        initial: [replicaSet('r1', 'd1'), replicaSet('r2', 'd2')],
        listed$: m.cold('-----x'),
        events$: m.hot('----------a', { a: added(replicaSet('r3', 'd2')) }),
      }).withIndex('owner', ownersOf);
      const joined$ = joinOn(deployments.by('uid'), replicaSets.by('owner')).pipe(map(show));
      m.expect(joined$, '^--------------!').toBeObservable('-----(AB)-C--D-', {
        A: 'd1@1:r1',
        B: 'd2@1:r2',
        C: 'd2@1:r2,r3',
        D: 'd2@2:r2,r3',
      });
    }),
  );

  it(
    'unsubscribing releases both registrations and the list/watches',
    marbles((m) => {
      const left = fakeInformer<KubeObject>({ initial: [deployment('d1')] }).withIndex('uid', uidOf);
      const right = fakeInformer<KubeObject>({ initial: [replicaSet('r1', 'd1')] }).withIndex('owner', ownersOf);
      const out: string[] = [];
      const sub = joinOn(left.by('uid'), right.by('owner')).pipe(map(show)).subscribe((s) => out.push(s));
      expect(out).toEqual(['d1@1:r1']);
      expect(left.backlogs().size + right.backlogs().size).toBe(2);
      sub.unsubscribe();
      expect(left.backlogs().size + right.backlogs().size).toBe(0);
      expect(left.isRunning || right.isRunning).toBe(false);
      m.flush();
    }),
  );
});
