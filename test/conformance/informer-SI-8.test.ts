/**
 * docs/semantics.md §4.3 SI-8: a subscriber's resync period against the informer's check period. In
 * rxkube the first subscriber starts the informer, so "before start" is the first registration
 * (or one made while the informer is stopped); see EXCLUDED-informer.md.
 */
import { Subject, Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { InformerConfigError } from '../../src/informer/informer-errors.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';

const H12 = 12 * 3600_000;
/** Every subscription a test makes, ended after it (the informers' resync timers with them). */
let subs = new Subscription();
afterEach(() => {
  subs.unsubscribe();
  subs = new Subscription();
});

describe('SI-8 resync period of a new subscriber', () => {
  it('before start a shorter period lowers the check period; after start shorter periods are raised to it', () => {
    const informer = sharedInformer(new Subject<ReflectorEvent>(), { defaultResyncPeriodMs: H12 });
    expect(informer.resyncCheckPeriodMs).toBe(H12);
    const first = informer.listen({ name: 'l1m', resyncPeriodMs: 60_000 });
    subs.add(first.events$.subscribe()); // registers before the informer starts, then starts it
    expect(informer.resyncCheckPeriodMs).toBe(60_000);
    subs.add(informer.listen({ name: 'l55s', resyncPeriodMs: 55_000 }).events$.subscribe());
    expect(informer.resyncCheckPeriodMs).toBe(60_000); // started: no longer lowered
    subs.add(informer.listen({ name: 'l0', resyncPeriodMs: 0 }).events$.subscribe());
    subs.add(informer.listen({ name: 'ldefault' }).events$.subscribe());
    subs.add(informer.listen({ name: 'l2m', resyncPeriodMs: 120_000 }).events$.subscribe());
    expect(informer.resyncPeriods()).toEqual(
      new Map([
        ['l1m', 60_000],
        ['l55s', 60_000], // raised to the check period
        ['l0', 0],
        ['ldefault', H12],
        ['l2m', 120_000],
      ]),
    );
  });

  it('a shorter period registered while stopped lowers the check period again', () => {
    const informer = sharedInformer(new Subject<ReflectorEvent>(), { defaultResyncPeriodMs: 60_000 });
    const s = informer.events$.subscribe();
    s.unsubscribe();
    subs.add(informer.listen({ name: 'l5s', resyncPeriodMs: 5_000 }).events$.subscribe());
    expect(informer.resyncCheckPeriodMs).toBe(5_000);
  });

  it('an informer created without resync never resyncs, whatever a subscriber asks', () => {
    const informer = sharedInformer(new Subject<ReflectorEvent>());
    subs.add(informer.listen({ name: 'l5s', resyncPeriodMs: 5_000 }).events$.subscribe());
    expect(informer.resyncCheckPeriodMs).toBe(0);
    expect(informer.resyncPeriods().get('l5s')).toBe(0);
  });

  it('a negative or non-finite period is a typed error', () => {
    const informer = sharedInformer(new Subject<ReflectorEvent>());
    expect(() => informer.listen({ resyncPeriodMs: -1 })).toThrow(InformerConfigError);
    expect(() => sharedInformer(new Subject<ReflectorEvent>(), { defaultResyncPeriodMs: Number.NaN })).toThrow(InformerConfigError);
  });
});
