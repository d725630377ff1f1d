/**
 * docs/semantics.md §4.4 SI-15: client-go detects cache mutation after the fact (opt-in); rxkube prevents
 * it: cached objects are deep-frozen by default, so a handler that mutates one throws at once.
 */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { modified, replace } from '../informer/helpers.js';

const pod = (rv: string): UnstructuredObject => ({
  metadata: { name: 'p', namespace: 'ns', resourceVersion: rv, labels: { a: 'b' } },
  spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'E', value: '1' }] }] },
});

describe('SI-15 no mutable reference into the cache', () => {
  it('objects from events and the store are deep-frozen (nested fields too)', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const got: KubeObject[] = [];
    informer.events$.subscribe((e) => {
      if (e.type !== 'delete') got.push(e.object);
      if (e.type === 'update') got.push(e.old);
    });
    src.next(replace('1', pod('1')));
    src.next(modified(pod('2')));
    for (const o of [...got, ...informer.store.list()]) {
      const env = (((o as UnstructuredObject)['spec'] as { containers: { env: { value: string }[] }[] }).containers[0]?.env[0]) as { value: string };
      expect(() => {
        env.value = 'mutated';
      }).toThrow(TypeError);
      expect(() => {
        (o.metadata?.labels as Record<string, string>)['x'] = 'y';
      }).toThrow(TypeError);
    }
    expect(got).toHaveLength(3);
  });

  it("freeze: 'shallow' is an explicit opt-out for speed (top level and direct children only)", () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { freeze: 'shallow' });
    informer.run$.subscribe();
    src.next(replace('1', pod('1')));
    const o = informer.store.list()[0] as KubeObject;
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.metadata)).toBe(true);
    expect(Object.isFrozen(o.metadata?.labels)).toBe(false);
  });
});
