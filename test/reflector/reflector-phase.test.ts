import { Observable, VirtualAction, VirtualTimeScheduler, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import { resolveListWatchOptions } from '../../src/reflector/list-watch-options.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { type ReflectorPhase, ReflectorRun } from '../../src/reflector/reflector-run.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { apiError, bookmark, fakeListWatcher, initialEventsEnd, added, obj, page } from './fake-list-watcher.js';

describe('ReflectorRun phases', () => {
  it('idle → listing → watching → resuming → watching → backingOff → listing → stopped', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const lw = fakeListWatcher(scheduler, {
      lists: [{ page: page([obj('a', '1')], '1'), at: 100 }, { hang: true }],
      watches: [{ events: [[1_000, bookmark('2')]], closeAt: 5_000 }, { errorAt: 900, error: apiError(400, 'BadRequest') }],
    });
    let run: ReflectorRun<KubeObject> | undefined;
    const events$ = new Observable<ReflectorEvent>((subscriber) => {
      run = new ReflectorRun(lw, resolveListWatchOptions({ scheduler, random: () => 0, streamingList: false }), subscriber);
      expect(run.phase).toBe('idle');
      run.start();
      return () => run?.stop();
    });
    const phases: Array<[number, ReflectorPhase | undefined]> = [];
    const sub = events$.subscribe();
    for (const at of [50, 200, 5_100, 5_500, 6_000, 60_000]) {
      // scheduled after the fake's own actions of the same instant, so each sample sees their outcome
      scheduler.schedule(() => scheduler.schedule(() => phases.push([at, run?.phase])), at);
    }
    scheduler.schedule(() => sub.unsubscribe(), 70_000);
    scheduler.flush();
    expect(phases).toEqual([
      [50, 'listing'],
      [200, 'watching'],
      [5_100, 'resuming'], // closed normally (times of a watch count from its start, 100): watch again on the next turn
      [5_500, 'watching'],
      [6_000, 'backingOff'], // the second watch failed: back off, then relist
      [60_000, 'listing'],
    ]);
    expect(run?.phase).toBe('stopped');
    expect(lw.watchCalls.map((c) => c.options.resourceVersion)).toEqual(['1', '2']);
    expect(lw.listCalls[1]?.unsubscribedAt).toBe(70_000);
  });

  it('a streaming list turns into a watch at its bookmark, on the same request', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const lw = fakeListWatcher(scheduler, {
      watches: [{ events: [[10, added(obj('a', '5'))], [20, initialEventsEnd('5')]] }],
    });
    let run: ReflectorRun<KubeObject> | undefined;
    const sub = new Observable<ReflectorEvent>((subscriber) => {
      run = new ReflectorRun(lw, resolveListWatchOptions({ scheduler, streamingList: true }), subscriber);
      run.start();
      return () => run?.stop();
    }).subscribe();
    const phases: Array<ReflectorPhase | undefined> = [];
    for (const at of [15, 25]) scheduler.schedule(() => phases.push(run?.phase), at);
    scheduler.schedule(() => sub.unsubscribe(), 100);
    scheduler.flush();
    expect(phases).toEqual(['streaming', 'watching']);
    expect(lw.watchCalls).toHaveLength(1);
    expect(lw.listCalls).toHaveLength(0);
  });

  it('unsubscribed while handling the list’s replace: opens no watch and reports nothing more', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const lw = fakeListWatcher(scheduler, { lists: [{ page: page([obj('a', '1')], '1') }], watches: [{}] });
    const statuses: ReflectorStatus[] = [];
    let completedAfter = -1;
    const events: ReflectorEvent[] = [];
    listWatch(lw, {
      scheduler,
      streamingList: false,
      status: { next: (s) => statuses.push(s), complete: () => (completedAfter = statuses.length) },
    })
      .pipe(take(1))
      .subscribe((e) => events.push(e));
    scheduler.flush();
    expect(events.map((e) => e.type)).toEqual(['replace']);
    expect(lw.watchCalls).toHaveLength(0); // before: a watch was opened after the unsubscribe, and never closed
    expect(statuses.map((s) => s.type)).toEqual(['connecting', 'listing']);
    expect(completedAfter).toBe(2);
  });
});
