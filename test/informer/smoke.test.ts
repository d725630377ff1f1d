import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';

const cm = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const brief = (e: InformerEvent) =>
  e.type === 'delete' ? 'delete' : `${e.type} ${e.object.metadata?.name ?? ''}@${e.object.metadata?.resourceVersion ?? ''}`;

describe('sharedInformer smoke', () => {
  it('late subscriber gets cached objects then live', () => {
    const src = new Subject<ReflectorEvent>();
    const inf = sharedInformer(src);
    const a: string[] = [];
    const b: string[] = [];
    const s1 = inf.events$.subscribe((e) => a.push(brief(e)));
    src.next({ type: 'replace', items: [cm('x', '1')], resourceVersion: '1' });
    expect(inf.hasSynced()).toBe(true);
    src.next({ type: 'added', object: cm('y', '2') });
    const s2 = inf.events$.subscribe((e) => b.push(brief(e)));
    src.next({ type: 'modified', object: cm('x', '3') });
    expect(a).toEqual(['add x@1', 'add y@2', 'update x@3']);
    expect(b).toEqual(['add x@1', 'add y@2', 'update x@3']);
    expect(inf.lastSyncResourceVersion).toBe('3');
    expect(Object.isFrozen(inf.store.list()[0])).toBe(true);
    s1.unsubscribe();
    s2.unsubscribe();
    expect(inf.isRunning).toBe(false);
  });
});
