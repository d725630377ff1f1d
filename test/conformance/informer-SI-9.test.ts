/** docs/semantics.md §4.3 SI-9 (and SI-6 routing): only the subscribers due get a resync, on the check period. */
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { brief, modified, obj, replace } from '../informer/helpers.js';

function advanceTo(s: VirtualTimeScheduler, frame: number): void {
  s.maxFrames = frame;
  s.flush();
}

describe('SI-9 shouldResync', () => {
  it('0 / 2 s / 3 s subscribers on a 1 s informer: each resyncs on its own period, only when due', () => {
    const scheduler = new VirtualTimeScheduler();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { defaultResyncPeriodMs: 1000, scheduler });
    const log: string[] = [];
    for (const [name, period] of [['l0', 0], ['l2', 2000], ['l3', 3000]] as const) {
      informer.listen({ name, resyncPeriodMs: period }).events$.subscribe((e) => log.push(`${scheduler.now()} ${name} ${brief(e)}`));
    }
    src.next(replace('1', obj('x', '1')));
    advanceTo(scheduler, 6000);
    expect(log).toEqual([
      '0 l0 add x@1*',
      '0 l2 add x@1*',
      '0 l3 add x@1*',
      '2000 l2 resync x@1',
      '3000 l3 resync x@1',
      '4000 l2 resync x@1',
      '6000 l2 resync x@1',
      '6000 l3 resync x@1',
    ]);
  });

  // With `relistUnchanged: true` (client-go's behaviour) a relist hands unchanged objects to the
  // subscribers that are syncing; rxkube's default delivers only what changed (see below).
  it('real updates reach every subscriber; unchanged relisted objects only the syncing ones (SI-6)', () => {
    const scheduler = new VirtualTimeScheduler();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { defaultResyncPeriodMs: 1000, scheduler, relistUnchanged: true });
    const seen = { none: [] as string[], every2s: [] as string[] };
    informer.listen({ name: 'none', resyncPeriodMs: 0 }).events$.subscribe((e) => seen.none.push(brief(e)));
    informer.listen({ name: 'every2s', resyncPeriodMs: 2000 }).events$.subscribe((e) => seen.every2s.push(brief(e)));
    src.next(replace('1', obj('p1', '1'), obj('p2', '1')));
    advanceTo(scheduler, 1000); // first check: nobody due, syncing flags become false
    src.next(modified(obj('p2', '2')));
    // a relist (after a watch disruption): p1 unchanged, p2 changed again, p3 new
    src.next(replace('5', obj('p1', '1'), obj('p2', '5'), obj('p3', '5')));
    expect(seen.none).toEqual(['add p1@1*', 'add p2@1*', 'update p2@1>p2@2', 'update p2@2>p2@5', 'add p3@5']);
    expect(seen.every2s).toEqual(seen.none);
    advanceTo(scheduler, 2000); // every2s is due now
    src.next(replace('6', obj('p1', '1'), obj('p2', '5'), obj('p3', '5')));
    expect(seen.none).toHaveLength(5);
    expect(seen.every2s.slice(5).sort()).toEqual(['resync p1@1', 'resync p1@1', 'resync p2@5', 'resync p2@5', 'resync p3@5', 'resync p3@5']);
  });

  it('a new subscriber is syncing until the first check: it gets the resync notifications of a relist', () => {
    const scheduler = new VirtualTimeScheduler();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { defaultResyncPeriodMs: 1000, scheduler, relistUnchanged: true });
    const seen: string[] = [];
    informer.listen({ resyncPeriodMs: 0 }).events$.subscribe((e) => seen.push(brief(e)));
    src.next(replace('1', obj('p1', '1')));
    src.next(replace('2', obj('p1', '1')));
    expect(seen).toEqual(['add p1@1*', 'resync p1@1']);
  });

  it('rxkube default: a relist delivers only what changed; periodic resync still hands out every object', () => {
    const scheduler = new VirtualTimeScheduler();
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src, { defaultResyncPeriodMs: 1000, scheduler });
    const seen: string[] = [];
    informer.listen({ resyncPeriodMs: 0 }).events$.subscribe((e) => seen.push(brief(e)));
    const resyncing: string[] = [];
    informer.listen({ resyncPeriodMs: 1000 }).events$.subscribe((e) => resyncing.push(brief(e)));
    src.next(replace('1', obj('p1', '1'), obj('p2', '1')));
    src.next(replace('2', obj('p1', '1'), obj('p2', '2')));
    expect(seen).toEqual(['add p1@1*', 'add p2@1*', 'update p2@1>p2@2']);
    advanceTo(scheduler, 1000);
    expect(seen).toHaveLength(3);
    expect(resyncing.slice(3).sort()).toEqual(['resync p1@1', 'resync p2@2']);
  });
});
