/** docs/semantics.md §4.4 SI-10: a late subscriber gets the cache replayed before any live notification. */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { added, brief, deleted, modified, obj, replace } from '../informer/helpers.js';

describe('SI-10 late subscriber', () => {
  it('gets every cached object as an initial add, then live events, with no gap and no duplicate', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const early: string[] = [];
    informer.events$.subscribe((e) => early.push(brief(e)));
    src.next(replace('1', obj('a', '1'), obj('b', '1')));
    src.next(added(obj('c', '2')));
    src.next(deleted(obj('b', '3')));
    const late: string[] = [];
    informer.events$.subscribe((e) => late.push(brief(e)));
    src.next(modified(obj('a', '4')));
    src.next(added(obj('d', '5')));
    expect(late.slice(0, 2).sort()).toEqual(['add a@1*', 'add c@2*']);
    expect(late.slice(2)).toEqual(['update a@1>a@4', 'add d@5']);
    expect(early.slice(-2)).toEqual(late.slice(2));
  });

  it('joining while another subscriber is still busy does not let a live event overtake the replay', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const step = new Subject<void>();
    informer.listen({ process: (_e: InformerEvent) => step }).events$.subscribe();
    src.next(replace('1', obj('a', '1')));
    src.next(modified(obj('a', '2'))); // the busy subscriber has not even seen a@1 finish
    const late: string[] = [];
    informer.events$.subscribe((e) => late.push(brief(e)));
    src.next(modified(obj('a', '3')));
    expect(late).toEqual(['add a@2*', 'update a@2>a@3']);
  });

  it('a subscriber that joins before the first list sees the list as initial adds', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const seen: string[] = [];
    informer.events$.subscribe((e) => seen.push(brief(e)));
    expect(seen).toEqual([]);
    src.next(replace('1', obj('a', '1')));
    expect(seen).toEqual(['add a@1*']);
  });
});
