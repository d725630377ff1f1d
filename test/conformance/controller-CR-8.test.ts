/** docs/semantics.md §8.4 CR-8: EnqueueRequestForObject — the object's own key; tombstones unwrapped. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/index.js';
import { type InformerEvent } from '../../src/cache/informer-event.js';
import { objectRequestsOf } from '../../src/controller/event-requests.js';

const o = (name: string, namespace = 'ns'): KubeObject => ({ metadata: { name, namespace, resourceVersion: '1' } });
const req = (e: InformerEvent) => objectRequestsOf(e).map((a) => a.request);

describe('CR-8 EnqueueRequestForObject', () => {
  it('create / delete → the object; update → the new object', () => {
    expect(req({ type: 'add', object: o('a'), isInInitialList: false })).toEqual([{ namespace: 'ns', name: 'a' }]);
    expect(req({ type: 'delete', object: o('a') })).toEqual([{ namespace: 'ns', name: 'a' }]);
    expect(req({ type: 'update', old: o('old'), object: o('new'), resync: false })).toEqual([{ namespace: 'ns', name: 'new' }]);
  });

  it('update with a null new object → the old object; a null object → nothing', () => {
    const e = { type: 'update', old: o('old'), object: null, resync: false } as unknown as InformerEvent;
    expect(req(e)).toEqual([{ namespace: 'ns', name: 'old' }]);
    expect(req({ type: 'add', object: null, isInInitialList: false } as unknown as InformerEvent)).toEqual([]);
  });

  it('tombstones are unwrapped (and fall back to their key when the object is unknown)', () => {
    expect(req({ type: 'delete', object: new DeletedFinalStateUnknown('ns/a', o('a')) })).toEqual([{ namespace: 'ns', name: 'a' }]);
    expect(req({ type: 'delete', object: new DeletedFinalStateUnknown('ns/b', null) })).toEqual([{ namespace: 'ns', name: 'b' }]);
  });

  it('cluster-scoped objects give a request without namespace', () => {
    expect(req({ type: 'add', object: o('node', ''), isInInitialList: false })).toEqual([{ name: 'node' }]);
  });
});
