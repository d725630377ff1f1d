/**
 * docs/semantics.md §4.4 SI-12: every subscriber has its own buffer and consumer; a slow one never blocks
 * the informer or the others, and each sees its notifications one at a time in order. rxkube
 * coalesces the buffer per key instead of growing it without bound (EXCLUDED-informer.md).
 */
import { Subject, VirtualTimeScheduler, map, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { added, brief, gated, modified, obj, replace } from '../informer/helpers.js';

describe('SI-12 per-subscriber buffering', () => {
  it('a slow subscriber does not delay the cache or a fast subscriber; it gets one notification at a time', () => {
    const scheduler = new VirtualTimeScheduler();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { scheduler });
    const fast: string[] = [];
    const slow: string[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    informer.events$.subscribe((e) => fast.push(`${scheduler.now()} ${brief(e)}`));
    informer
      .listen({
        process: (e: InformerEvent) => {
          concurrent++;
          maxConcurrent = Math.max(maxConcurrent, concurrent);
          return timer(10, scheduler).pipe(
            map(() => {
              concurrent--;
              slow.push(`${scheduler.now()} ${brief(e)}`);
            }),
          );
        },
      })
      .events$.subscribe();
    src.next(replace('1', obj('a', '1')));
    src.next(added(obj('b', '2')));
    src.next(added(obj('c', '3')));
    expect(fast).toEqual(['0 add a@1*', '0 add b@2', '0 add c@3']);
    expect(informer.store.size).toBe(3);
    scheduler.flush();
    expect(slow).toEqual(['10 add a@1*', '20 add b@2', '30 add c@3']);
    expect(maxConcurrent).toBe(1);
  });

  it('per key, order is preserved and the backlog holds at most the latest state (plus a delete)', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const slow: string[] = [];
    const { steps, process } = gated((e) => slow.push(brief(e)));
    informer.listen({ name: 'slow', process }).events$.subscribe();
    src.next(replace('1', obj('a', '1'), obj('b', '1')));
    for (let rv = 2; rv < 1000; rv++) src.next(modified(obj(rv % 2 === 0 ? 'a' : 'b', String(rv))));
    expect(informer.backlogs().get('slow')).toBe(2);
    while (steps.length > 0) steps.shift()?.complete();
    expect(slow).toEqual(['add a@1*', 'add b@999*', 'update a@1>a@998']);
  });
});
