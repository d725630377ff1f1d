import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { objectOf } from '../../src/informer/event-object.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { deleted } from '../../src/testing/controller-harness.js';
import { fakeInformer } from '../../src/testing/fake-informer.js';
import { marbles } from '../helpers/marbles.js';

const cm = (name: string, rv = '1'): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const names = (s: ReadonlyMap<string, KubeObject>) => [...s.values()].map((o) => o.metadata?.name).sort().join(',');

describe('fakeInformer', () => {
  it('has every member of a SharedInformer (it is one), so production code takes it unchanged', () => {
    const real = sharedInformer(NEVER);
    const fake = fakeInformer();
    const members = (o: object) => Object.keys(o).sort();
    expect(members(fake)).toEqual(expect.arrayContaining(members(real)));
    const typed: SharedInformer<KubeObject> = fake;
    expect(typeof typed.listen).toBe('function');
  });

  it(
    'lists its objects at start (when listed$ says), then delivers events$; state$ and synced$ follow',
    marbles((m) => {
      const informer = fakeInformer({
        initial: [cm('a')],
        listed$: m.cold('--x'),
        events$: m.hot('----b--c', { b: { type: 'add', object: cm('b'), isInInitialList: false }, c: deleted(cm('a')) }),
      });
      m.expect(informer.synced$, '^------!').toBeObservable('f-t-----', { f: false, t: true });
      const out: string[] = [];
      informer.state$.subscribe((s) => out.push(names(s)));
      m.flush();
      expect(out).toEqual(['a', 'a,b', 'b']);
    }),
  );

  it('set / remove: delivered while running, held and listed on the next start while stopped', () => {
    const informer = fakeInformer({ initial: [cm('a')] });
    const seen: string[] = [];
    let sub = informer.events$.subscribe((e) => seen.push(`${e.type} ${objectOf(e)?.metadata?.name}`));
    expect(informer.watching).toBe(true);
    informer.set(cm('b'));
    informer.set(cm('b', '2'));
    informer.remove(cm('a'));
    expect(seen).toEqual(['add a', 'add b', 'update b', 'delete a']);
    sub.unsubscribe();
    expect(informer.watching).toBe(false);
    informer.set(cm('c'));
    seen.length = 0;
    sub = informer.events$.subscribe((e) => seen.push(`${e.type} ${objectOf(e)?.metadata?.name}`));
    expect(informer.starts).toBe(2);
    // The cache (kept while stopped) replayed first, then the relist: b unchanged (not delivered again), c new.
    expect(seen[0]).toBe('add b');
    expect(seen.slice(1)).toEqual(['add c']);
    expect(informer.store.listKeys().sort()).toEqual(['ns/b', 'ns/c']);
    sub.unsubscribe();
  });
});
