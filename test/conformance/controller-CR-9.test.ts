/** docs/semantics.md §8.4 CR-9: EnqueueRequestForOwner. */
import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { resources } from '../../src/api/builtin-resources.js';
import type { ResourceType } from '../../src/api/resource.js';
import { ownerRequestsOf } from '../../src/controller/event-requests.js';

const RS = resources.replicaSets;
const ref = (name: string, controller?: boolean, apiVersion = 'apps/v1', kind = 'ReplicaSet'): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid: name,
  ...(controller === undefined ? {} : { controller }),
});
const pod = (refs: OwnerReference[]): KubeObject => ({ metadata: { namespace: 'ns', name: 'p', resourceVersion: '1', ownerReferences: refs } });
const add = (o: KubeObject): InformerEvent => ({ type: 'add', object: o, isInInitialList: false });
const names = (e: InformerEvent, owner: ResourceType & { readonly namespaced: boolean } = RS, every = false) =>
  ownerRequestsOf(e, owner, { matchEveryOwner: every }).map((a) => (a.request.namespace ? `${a.request.namespace}/` : '') + a.request.name);

describe('CR-9 EnqueueRequestForOwner', () => {
  it('only the FIRST controller ref counts (foo2-parent among several)', () => {
    const e = add(pod([ref('foo1-parent'), ref('foo2-parent', true), ref('foo3-parent', true)]));
    expect(names(e)).toEqual(['ns/foo2-parent']);
  });

  it('no controller owner → nothing; matchEveryOwner → every matching owner', () => {
    const e = add(pod([ref('a'), ref('b'), ref('c', false)]));
    expect(names(e)).toEqual([]);
    expect(names(e, RS, true)).toEqual(['ns/a', 'ns/b', 'ns/c']);
  });

  it('matches group and kind only, ignoring the version', () => {
    expect(names(add(pod([ref('v1beta', true, 'apps/v1beta2')])))).toEqual(['ns/v1beta']);
    expect(names(add(pod([ref('other-group', true, 'extensions/v1beta1')])))).toEqual([]);
    expect(names(add(pod([ref('other-kind', true, 'apps/v1', 'Deployment')])))).toEqual([]);
  });

  it('the first controller ref of another kind means nothing (it is the controller)', () => {
    expect(names(add(pod([ref('d', true, 'apps/v1', 'Deployment'), ref('rs', true)])))).toEqual([]);
  });

  it('update → union of old and new owners, deduplicated', () => {
    const same: InformerEvent = { type: 'update', old: pod([ref('x', true)]), object: pod([ref('x', true)]), resync: false };
    expect(names(same)).toEqual(['ns/x']);
    const moved: InformerEvent = { type: 'update', old: pod([ref('x', true)]), object: pod([ref('y', true)]), resync: false };
    expect(names(moved)).toEqual(['ns/x', 'ns/y']);
  });

  it('cluster-scoped owners get no namespace', () => {
    expect(names(add(pod([ref('n1', true, 'v1', 'Node')])), resources.nodes)).toEqual(['n1']);
  });

  it('an unparsable apiVersion stops the scan; refs matched before it are kept', () => {
    expect(names(add(pod([ref('bad', true, 'a/b/c')])))).toEqual([]);
    expect(names(add(pod([ref('ok'), ref('bad', false, 'a/b/c'), ref('later')])), RS, true)).toEqual(['ns/ok']);
  });

  it('a null object → nothing', () => {
    expect(names({ type: 'add', object: null, isInInitialList: false } as unknown as InformerEvent)).toEqual([]);
  });
});
