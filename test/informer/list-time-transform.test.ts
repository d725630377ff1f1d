/**
 * The informer's transform runs on list items as their page is parsed (the reflector's
 * `listItemTransform`), so a large list never holds every untransformed object at once; each
 * object is still transformed exactly once, and a transform error is still reported and skips
 * the object.
 */
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { TransformError } from '../../src/cache/errors.js';
import { listTimeTransform } from '../../src/informer/list-time-transform.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { fakeListWatcher, obj, page } from '../reflector/fake-list-watcher.js';

const withFields = (name: string): KubeObject => {
  const o = obj(name, '1');
  return { ...o, metadata: { ...o.metadata, managedFields: [{ manager: 'kubectl' }] } };
};

function informerOver(items: KubeObject[][], transform?: (o: KubeObject) => KubeObject) {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  const lists = items.map((p, i) => ({ page: page(p, '10', i < items.length - 1 ? `c${i + 1}` : undefined), at: 100 }));
  const lw = fakeListWatcher(scheduler, { lists, watches: [{}] });
  const calls: Array<{ name: string; listRequests: number }> = [];
  const counted = (o: KubeObject): KubeObject => {
    calls.push({ name: o.metadata?.name ?? '?', listRequests: lw.listCalls.length });
    if (transform !== undefined) return transform(o);
    const { managedFields: _m, ...metadata } = o.metadata ?? {};
    return { ...o, metadata };
  };
  const informer = sharedInformer({ listWatcher: lw, listWatch: { pageSize: 2, streamingList: false } }, { scheduler, transform: counted });
  const errors: Error[] = [];
  informer.errors$.subscribe((e) => errors.push(e));
  const sub = informer.run$.subscribe();
  scheduler.schedule(() => sub.unsubscribe(), 10_000);
  scheduler.flush();
  return { informer, calls, errors, lw };
}

describe('the informer transform at list time', () => {
  it('runs on each page as it is parsed, before the next page is requested, once per object', () => {
    const { informer, calls } = informerOver([[withFields('a'), withFields('b')], [withFields('c')]]);
    // a and b were transformed while only the first page had been requested
    expect(calls).toEqual([
      { name: 'a', listRequests: 1 },
      { name: 'b', listRequests: 1 },
      { name: 'c', listRequests: 2 },
    ]);
    expect(informer.store.listKeys().sort()).toEqual(['default/a', 'default/b', 'default/c']);
    expect(informer.store.get('default/a')?.metadata?.managedFields).toBeUndefined();
  });

  it('a transform error is still reported as TransformError and skips the object', () => {
    const failing = (o: KubeObject): KubeObject => {
      if (o.metadata?.name === 'b') throw new Error('no b');
      return { ...o, metadata: { ...o.metadata, labels: { seen: 'yes' } } };
    };
    const { informer, errors } = informerOver([[obj('a', '1'), obj('b', '1')]], failing);
    expect(informer.store.listKeys()).toEqual(['default/a']);
    expect(informer.store.get('default/a')?.metadata?.labels).toEqual({ seen: 'yes' });
    expect(errors.some((e) => e instanceof TransformError)).toBe(true);
  });
});

describe('listTimeTransform', () => {
  it('lets through, once, what its list side produced; transforms anything else', () => {
    let runs = 0;
    const t = listTimeTransform<KubeObject>((o) => {
      runs += 1;
      return { ...o, kind: 'Seen' } as KubeObject;
    });
    const early = t.list(obj('a', '1'));
    expect(runs).toBe(1);
    expect(t.queue(early)).toBe(early);
    expect(runs).toBe(1);
    // a second time (a relist handing the same object again) it is transformed again
    expect(t.queue(early)).not.toBe(early);
    expect(runs).toBe(2);
    const other = obj('b', '1');
    expect(t.queue(other)).toEqual({ ...other, kind: 'Seen' });
  });
});
