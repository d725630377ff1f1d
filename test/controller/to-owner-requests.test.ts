import { describe, expect, it } from 'vitest';
import { toOwnerRequests } from '../../src/controller/to-owner-requests.js';
import type { KubeObject, OwnerReference } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { marbles } from '../helpers/marbles.js';

const RS = { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespaced: true };
const ref = (name: string, controller = true, apiVersion = 'apps/v1', kind = 'ReplicaSet'): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller,
});
const pod = (name: string, refs: OwnerReference[], rv = '1'): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv, ownerReferences: refs },
});
const add = (o: KubeObject): InformerEvent => ({ type: 'add', object: o, isInInitialList: false });

describe('toOwnerRequests', () => {
  it(
    'matches the marble diagram in its doc comment',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        a: add(pod('p', [ref('rs1')])),
        u: { type: 'update', old: pod('p', [ref('rs1')]), object: pod('p', [ref('rs2')], '2'), resync: false },
        q: add(pod('q', [])),
      };
      const r1 = { request: { namespace: 'ns', name: 'rs1' } };
      const r2 = { request: { namespace: 'ns', name: 'rs2' } };
      m.expect(m.cold('--a--u--q--|', events).pipe(toOwnerRequests(RS))).toBeObservable('--a--(uv)--|', {
        a: r1,
        u: r1,
        v: r2,
      });
    }),
  );

  it('rejects an owner type without a kind at construction', () => {
    expect(() => toOwnerRequests({ apiVersion: 'v1', kind: '', namespaced: true })).toThrow(TypeError);
  });
});
