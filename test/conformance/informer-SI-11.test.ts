/** docs/semantics.md §4.4 SI-11: each registration has its own synced state. */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { gated, obj, replace } from '../informer/helpers.js';

describe('SI-11 per-registration synced', () => {
  it('synced once the informer synced and this registration handled its initial adds; stays true', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const g = gated();
    const handle = informer.listen({ process: g.process });
    expect(handle.hasSynced()).toBe(false);
    handle.events$.subscribe();
    expect(handle.hasSynced()).toBe(false); // never synced before the informer
    src.next(replace('1', obj('a', '1'), obj('b', '1')));
    expect(informer.hasSynced()).toBe(true);
    expect(handle.hasSynced()).toBe(false);
    g.finishOne();
    expect(handle.hasSynced()).toBe(false);
    g.finishOne();
    expect(handle.hasSynced()).toBe(true);
    src.next(replace('2', obj('c', '2'))); // a later relist does not unsync it
    expect(handle.hasSynced()).toBe(true);
  });

  it('two registrations with the same options are independent', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const g1 = gated();
    const g2 = gated();
    const h1 = informer.listen({ process: g1.process });
    const h2 = informer.listen({ process: g2.process });
    h1.events$.subscribe();
    h2.events$.subscribe();
    src.next(replace('1', obj('a', '1')));
    g1.finishOne();
    expect(h1.hasSynced()).toBe(true);
    expect(h2.hasSynced()).toBe(false);
    g2.finishOne();
    expect(h2.hasSynced()).toBe(true);
  });

  it('a late registration on a synced informer syncs after its replay is handled', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    informer.run$.subscribe();
    src.next(replace('1', obj('a', '1')));
    const g = gated();
    const h = informer.listen({ process: g.process });
    const states: boolean[] = [];
    h.synced$.subscribe((s) => states.push(s));
    h.events$.subscribe();
    expect(h.hasSynced()).toBe(false);
    g.finishOne();
    expect(states).toEqual([false, true]);
  });
});
