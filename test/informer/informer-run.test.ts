import { Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { InformerRun } from '../../src/informer/informer-run.js';
import { ListenerResync } from '../../src/informer/listener-resync.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { brief, modified, obj, replace } from './helpers.js';

describe('ListenerResync: one listener’s resync timing, kept by its informer', () => {
  it('gets resyncs until the first check, then only at the checks that find it due (SI-9)', () => {
    const timing = new ListenerResync(3_000);
    timing.fitTo(1_000);
    timing.startAt(0);
    expect(timing.periodMs).toBe(3_000);
    expect(timing.due).toBe(true); // before any check
    expect(timing.check(1_000)).toBe(false);
    expect(timing.due).toBe(false);
    expect(timing.check(3_000)).toBe(true);
    expect(timing.due).toBe(true);
    expect(timing.check(4_000)).toBe(false); // the next one is one period after the last
    expect(timing.check(6_000)).toBe(true);
  });

  it('takes the check period when it asked for less, and none when either is 0 (SI-7)', () => {
    const timing = new ListenerResync(2_000);
    timing.fitTo(5_000);
    expect(timing.periodMs).toBe(5_000);
    timing.fitTo(0);
    expect(timing.periodMs).toBe(0);
    expect(timing.check(1e9)).toBe(false);
  });
});

describe('InformerRun: the shared informer’s state machine', () => {
  it('stopped → running with the first subscriber, → stopped when the last leaves (synced falls back)', () => {
    const source = new Subject<ReflectorEvent>();
    const run = new InformerRun(source, { name: 'cms' });
    expect(run.isRunning).toBe(false);
    const sub = run.core$.subscribe();
    expect(run.isRunning).toBe(true);
    source.next(replace('1', obj('a', '1')));
    expect(run.synced.value).toBe(true);
    expect(run.lastSyncResourceVersion).toBe('1');
    sub.unsubscribe();
    expect(run.isRunning).toBe(false);
    expect(run.synced.value).toBe(false);
    expect(run.indexer.listKeys()).toEqual(['ns/a']); // the cache stays readable while stopped
  });

  it('stays running for stopGraceMs after the last subscriber left; the check period is fixed until it stops', () => {
    const scheduler = new VirtualTimeScheduler();
    const run = new InformerRun(new Subject<ReflectorEvent>(), { scheduler, stopGraceMs: 5_000, defaultResyncPeriodMs: 60_000 });
    run.listen({ name: 'first' }).events$.subscribe().unsubscribe();
    expect(run.isRunning).toBe(true); // in its grace period
    run.listen({ name: 'short', resyncPeriodMs: 10_000 }).events$.subscribe().unsubscribe();
    expect(run.resyncCheckPeriodMs).toBe(60_000); // running: not lowered
    scheduler.flush();
    expect(run.isRunning).toBe(false);
    const late = run.listen({ name: 'late', resyncPeriodMs: 10_000 }).events$.subscribe();
    expect(run.resyncCheckPeriodMs).toBe(10_000); // stopped when it joined: lowered (SI-8)
    late.unsubscribe();
  });

  it('sends a resync only to the listeners it is due for, and keeps their timing itself', () => {
    const scheduler = new VirtualTimeScheduler();
    const source = new Subject<ReflectorEvent>();
    const run = new InformerRun(source, { scheduler, defaultResyncPeriodMs: 1_000 });
    const seen = new Map<string, string[]>([['fast', []], ['slow', []]]);
    for (const [name, periodMs] of [['fast', 1_000], ['slow', 3_000]] as const) {
      run.listen<never>({ name, resyncPeriodMs: periodMs }).events$.subscribe((e) => seen.get(name)?.push(brief(e)));
    }
    source.next(replace('1', obj('a', '1')));
    source.next(modified(obj('a', '2')));
    scheduler.maxFrames = 3_000;
    scheduler.flush();
    expect(run.resyncPeriods()).toEqual(new Map([['fast', 1_000], ['slow', 3_000]]));
    expect(seen.get('fast')?.filter((e) => e.startsWith('resync'))).toEqual(['resync a@2', 'resync a@2', 'resync a@2']);
    expect(seen.get('slow')?.filter((e) => e.startsWith('resync'))).toEqual(['resync a@2']);
  });
});
