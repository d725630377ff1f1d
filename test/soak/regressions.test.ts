import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import { ListenerBacklog } from '../../src/informer/listener-backlog.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { gated } from '../informer/helpers.js';

/** Failures the chaos soak found, kept as regression tests. */

const cm = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } });

describe('soak regressions: a slow subscriber is never told of a delete of an object it never saw', () => {
  it('ListenerBacklog: a pending add and a delete cancel out; a delete pending before the add stays', () => {
    const b = new ListenerBacklog();
    b.push('ns/x', { type: 'add', object: cm('x', '1'), isInInitialList: false });
    b.push('ns/x', { type: 'update', old: cm('x', '1'), object: cm('x', '2'), resync: false });
    b.push('ns/x', { type: 'delete', object: cm('x', '3') });
    expect(b.size).toBe(0);
    expect(b.keys).toBe(0);
    expect(b.shift()).toBeUndefined();

    b.push('ns/i', { type: 'add', object: cm('i', '1'), isInInitialList: true });
    expect(b.pendingInitial).toBe(1);
    b.push('ns/i', { type: 'delete', object: cm('i', '2') });
    expect(b.pendingInitial).toBe(0);
    expect(b.size).toBe(0);

    b.push('ns/y', { type: 'delete', object: cm('y', '1') });
    b.push('ns/y', { type: 'add', object: cm('y', '2'), isInInitialList: false });
    b.push('ns/y', { type: 'delete', object: cm('y', '3') });
    b.push('ns/z', { type: 'update', old: cm('z', '1'), object: cm('z', '2'), resync: false });
    b.push('ns/z', { type: 'delete', object: cm('z', '3') });
    const out: string[] = [];
    for (let e = b.shift(); e !== undefined; e = b.shift()) {
      const o: KubeObject | null = e.type === 'delete' && e.object instanceof DeletedFinalStateUnknown ? e.object.object : (e.object as KubeObject);
      out.push(`${e.type} ${o?.metadata?.name ?? ''}@${o?.metadata?.resourceVersion ?? ''}`);
    }
    expect(out).toEqual(['delete y@1', 'delete z@3']);
  });

  it('a slow subscriber whose pending add is overtaken by the delete sees neither (the soak found "delete of a key it never had")', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const seen: string[] = [];
    const { steps, process } = gated((e) => seen.push(`${e.type} ${e.type === 'delete' ? '' : (e.object.metadata?.name ?? '')}`));
    informer
      .listen({ name: 'slow', process })
      .events$.subscribe();
    src.next({ type: 'replace', items: [cm('a', '1')], resourceVersion: '1' });
    src.next({ type: 'added', object: cm('b', '2') });
    src.next({ type: 'deleted', object: cm('b', '3') });
    while (steps.length > 0) steps.shift()?.complete();
    expect(seen).toEqual(['add a']);
    expect(informer.store.has('ns/b')).toBe(false);
  });
});
