/** docs/semantics.md §4.4 SI-14: removing a subscriber (unsubscribing its registration). */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { added, brief, obj, replace } from '../informer/helpers.js';

describe('SI-14 remove a subscriber', () => {
  it('stops delivery at once, discards what was buffered, is idempotent', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    informer.run$.subscribe(); // keeps the informer running
    const step = new Subject<void>();
    const seen: string[] = [];
    const sub = informer
      .listen({ name: 'x', process: (e: InformerEvent) => (seen.push(brief(e)), step) })
      .events$.subscribe();
    src.next(replace('1', obj('a', '1'), obj('b', '1')));
    expect(informer.backlogs().get('x')).toBe(1);
    sub.unsubscribe();
    sub.unsubscribe();
    expect(informer.backlogs().has('x')).toBe(false);
    step.complete(); // the in-flight step finishing does not deliver the buffered one
    src.next(added(obj('c', '2')));
    expect(seen).toEqual(['add a@1*']);
    expect(informer.isRunning).toBe(true);
  });

  it('works after the informer stopped (its source completed)', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    let completed = false;
    const sub = informer.events$.subscribe({ complete: () => (completed = true) });
    src.complete();
    expect(completed).toBe(true);
    expect(informer.isRunning).toBe(false);
    expect(() => sub.unsubscribe()).not.toThrow();
  });
});
