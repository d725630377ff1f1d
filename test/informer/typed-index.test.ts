import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { IndexerConflictError, IndexNotFoundError } from '../../src/cache/errors.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { join, joinInputs } from '../../src/informer/join.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { added, modified, replace } from './helpers.js';

type Pod = KubeObject & { spec?: { nodeName?: string } };
const pod = (name: string, nodeName: string, rv = '1'): Pod => ({ metadata: { name, namespace: 'ns', resourceVersion: rv }, spec: { nodeName } });
const nodeOf = (p: Pod) => [p.spec?.nodeName ?? ''];

describe('typed indexes: withIndex / by', () => {
  it('declared before start: the handle reads the index by its declared name', () => {
    const src = new Subject<ReflectorEvent<Pod>>();
    const pods = sharedInformer<Pod>(src).withIndex('node', nodeOf);
    const sub = pods.run$.subscribe();
    src.next(replace('1', pod('a', 'n1'), pod('b', 'n2'), pod('c', 'n1')));
    const byNode = pods.by('node');
    expect(byNode.name).toBe('node');
    expect(byNode.keys('n1')).toEqual(['ns/a', 'ns/c']);
    expect(byNode.list('n2').map((p) => p.metadata?.name)).toEqual(['b']);
    expect(byNode.values().sort()).toEqual(['n1', 'n2']);
    expect(pods.by('namespace').keys('ns')).toHaveLength(3);
    expect(pods.by('node')).toBe(byNode);
    sub.unsubscribe();
  });

  it('declared after start: the cache is back-filled and later changes are indexed', () => {
    const src = new Subject<ReflectorEvent<Pod>>();
    const informer = sharedInformer<Pod>(src);
    const sub = informer.run$.subscribe();
    src.next(replace('1', pod('a', 'n1'), pod('b', 'n2')));
    const pods = informer.withIndex('node', nodeOf);
    expect(pods.by('node').keys('n1')).toEqual(['ns/a']);
    src.next(modified(pod('b', 'n1', '2')));
    src.next(added(pod('c', 'n3', '3')));
    expect(pods.by('node').keys('n1')).toEqual(['ns/a', 'ns/b']);
    expect(pods.by('node').keys('n2')).toEqual([]);
    expect(pods.by('node').keys('n3')).toEqual(['ns/c']);
    sub.unsubscribe();
  });

  it('the same declaration twice is a no-op (independent composition steps); another function under the name throws', () => {
    const pods = sharedInformer<Pod>(new Subject<ReflectorEvent<Pod>>());
    const stepA = (i: SharedInformer<Pod>) => i.withIndex('node', nodeOf);
    const stepB = (i: SharedInformer<Pod>) => i.withIndex('node', nodeOf);
    expect(stepB(stepA(pods))).toBe(pods);
    expect(() => pods.withIndex('node', (p) => [p.metadata?.name ?? ''])).toThrow(IndexerConflictError);
  });

  it('a name that was never declared fails at run time too (when the types were bypassed)', () => {
    const pods = sharedInformer<Pod>(new Subject<ReflectorEvent<Pod>>()) as unknown as SharedInformer<Pod, 'node'>;
    expect(() => pods.by('node')).toThrow(IndexNotFoundError);
  });

  it('factory informers: two steps declare the index on the shared informer, even after the factory started it', () => {
    const factory = new InformerFactory(() => ({
      list: () => new Subject(),
      watch: () => new Subject(),
    }));
    const first = factory.pods().withIndex('node', nodeOf);
    factory.start();
    const second = factory.pods().withIndex('node', nodeOf).withIndex('name', (p) => [p.metadata?.name ?? '']);
    expect(second).toBe(first);
    expect(second.by('name').name).toBe('name');
    factory.stop();
  });

  it('a handle is a join side: join takes the two handles, not index names', () => {
    const podsSrc = new Subject<ReflectorEvent<Pod>>();
    const nodesSrc = new Subject<ReflectorEvent<KubeObject>>();
    const pods = sharedInformer<Pod>(podsSrc).withIndex('node', nodeOf);
    const nodes = sharedInformer<KubeObject>(nodesSrc).withIndex('name', (n) => [n.metadata?.name ?? '']);
    const out: string[] = [];
    const sub = joinInputs(pods.events$, nodes.events$)
      .pipe(join(pods.by('node'), nodes.by('name')))
      .subscribe((j) => out.push(`${j.key}:${j.right.map((n) => n.metadata?.name).join(',')}`));
    nodesSrc.next(replace('1', { metadata: { name: 'n1' } }));
    podsSrc.next(replace('1', pod('a', 'n1')));
    expect(out).toEqual(['ns/a:n1']);
    sub.unsubscribe();
  });
});
