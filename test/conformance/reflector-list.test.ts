import { describe, expect, it } from 'vitest';
import { listPages } from '../../src/reflector/list-pages.js';
import { VirtualAction, VirtualTimeScheduler, lastValueFrom } from 'rxjs';
import {
  apiError,
  expired,
  fakeListWatcher,
  gone,
  internalError,
  obj,
  page,
  tooLarge,
} from '../reflector/fake-list-watcher.js';
import { runClientGo as run } from '../reflector/harness.js';

/** A watch that ends with 410 Gone after `at` ms (forces a relist at the last RV). */
const goneAfter = (at: number) => ({ errorAt: at, error: gone() });

describe('reflector list (docs/semantics.md §3.2, §3.3)', () => {
  it('RE-1 a failed list is reported, backed off and retried; the stream never errors', () => {
    const r = run({ lists: [{ error: apiError(500, 'InternalError'), at: 5_000 }, { page: page([obj('a', '1')], '1') }] }, 60_000);
    expect(r.error).toBeUndefined();
    const err = r.statuses.find((x) => x.s.type === 'error');
    expect(err?.s).toMatchObject({ type: 'error', action: 'relist' });
    expect(err?.t).toBe(5_000);
    // sliding: the 800ms wait starts when the failure arrives
    expect(r.lw.listCalls.map((c) => c.at)).toEqual([0, 5_800]);
    expect(r.eventTypes()).toEqual(['replace']);
  });

  it('RE-2 lists, then watches from the list resourceVersion; a failed list opens no watch; unsubscribe during a list aborts it', () => {
    const ok = run({ lists: [{ page: page([obj('a', '3')], '7') }] }, 1_000);
    expect(ok.events[0]?.e).toEqual({ type: 'replace', items: [obj('a', '3')], resourceVersion: '7' });
    expect(ok.watchRVs()).toEqual(['7']);

    const failing = run({ lists: [{ error: internalError() }] }, 500);
    expect(failing.lw.watchCalls).toHaveLength(0);

    const aborted = run({ lists: [{ hang: true }] }, 2_000);
    expect(aborted.lw.listCalls[0]?.unsubscribedAt).toBe(2_000);
    expect(aborted.lw.watchCalls).toHaveLength(0);
    expect(aborted.statusCompleted).toBe(true);
  });

  it('RE-3 the first list asks for RV "0", a relist for the last synced RV, after Expired for ""', () => {
    const r = run(
      {
        lists: [{ page: page([], '10') }, { page: page([], '12') }],
        watches: [goneAfter(5_000)],
      },
      20_000,
    );
    expect(r.listRVs()).toEqual(['0', '10']);
    const unavailable = run(
      {
        lists: [{ page: page([], '10') }, { error: expired() }, { page: page([], '15') }],
        watches: [goneAfter(5_000)],
      },
      20_000,
    );
    expect(unavailable.listRVs()).toEqual(['0', '10', '']);
  });

  it('RE-4 page size: 500 at "0"/"", none at a specific RV, the pageSize option always, 500 again once "0" was paginated', () => {
    const r = run(
      { lists: [{ page: page([], '10') }, { page: page([], '11') }, { error: expired() }, { page: page([], '13') }], watches: [goneAfter(5_000), goneAfter(5_000)] },
      40_000,
    );
    expect(r.lw.listCalls.map((c) => [c.options.resourceVersion ?? '', c.options.limit ?? 0])).toEqual([
      ['0', 500],
      ['10', 0],
      ['11', 0],
      ['', 500],
    ]);

    const sized = run(
      { lists: [{ page: page([obj('a', '1')], '5', 'C1') }, { page: page([obj('b', '2')], '5', 'C2') }, { page: page([], '5') }] },
      1_000,
      { pageSize: 4 },
    );
    expect(sized.lw.listCalls.map((c) => [c.options.limit, c.options.continue])).toEqual([
      [4, undefined],
      [4, 'C1'],
      [4, 'C2'],
    ]);

    const latched = run(
      {
        lists: [{ page: page([obj('a', '1')], '5', 'C1') }, { page: page([obj('b', '2')], '5') }, { page: page([], '6') }],
        watches: [goneAfter(5_000)],
      },
      20_000,
    );
    expect(latched.lw.listCalls.map((c) => [c.options.resourceVersion ?? '', c.options.limit ?? 0])).toEqual([
      ['0', 500],
      ['', 500],
      ['5', 500],
    ]);
  });

  it('RE-5 pages are assembled; continue requests drop the RV; Expired on a later page retries one full list', async () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const lw = fakeListWatcher(scheduler, {
      lists: [
        { page: page([obj('a', '1')], '9', 'C1') },
        { error: expired() },
        { page: page([obj('a', '1'), obj('b', '2')], '9') },
        { page: page([obj('x', '1')], '3', 'C1') },
        { page: page([obj('y', '2')], '3') },
        { error: expired() },
      ],
    });
    const full = lastValueFrom(listPages(lw, { resourceVersion: '9', resourceVersionMatch: 'NotOlderThan', limit: 1 }));
    scheduler.flush();
    await expect(full).resolves.toEqual({ items: [obj('a', '1'), obj('b', '2')], resourceVersion: '9', paginated: true, pages: 2 });
    expect(lw.listCalls.map((c) => c.options)).toEqual([
      { resourceVersion: '9', resourceVersionMatch: 'NotOlderThan', limit: 1 },
      { limit: 1, continue: 'C1' },
      { resourceVersion: '9', resourceVersionMatch: 'NotOlderThan' },
    ]);

    const two = lastValueFrom(listPages(lw, { resourceVersion: '0', limit: 1 }));
    scheduler.flush();
    await expect(two).resolves.toEqual({ items: [obj('x', '1'), obj('y', '2')], resourceVersion: '3', paginated: true, pages: 2 });

    // Expired on the FIRST page is passed on
    const first = lastValueFrom(listPages(lw, { resourceVersion: '0', limit: 1 }));
    scheduler.flush();
    await expect(first).rejects.toMatchObject({ reason: 'Expired' });

    // through the reflector: one replace with every page
    const r = run({ lists: [{ page: page([obj('a', '1')], '4', 'C') }, { page: page([obj('b', '2')], '4') }] }, 100);
    expect(r.events.map((x) => x.e)).toEqual([{ type: 'replace', items: [obj('a', '1'), obj('b', '2')], resourceVersion: '4' }]);
  });

  it('RE-5 without fullListIfExpired a later-page Expired is passed on', async () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const lw = fakeListWatcher(scheduler, { lists: [{ page: page([obj('a', '1')], '9', 'C1') }, { error: expired() }] });
    const p = lastValueFrom(listPages(lw, { limit: 1 }, { fullListIfExpired: false }));
    scheduler.flush();
    await expect(p).rejects.toMatchObject({ reason: 'Expired' });
    expect(lw.listCalls).toHaveLength(2);
  });

  it('RE-6 Expired and every TooLarge shape fall back immediately to a list at ""; success clears the flag', () => {
    const timeoutTooLarge = apiError(504, 'Timeout', { details: { causes: [{ message: 'Too large resource version: 50, current: 40' }] } });
    const messageTooLarge = apiError(504, 'Timeout', { message: 'Too large resource version: 60' });
    const r = run(
      {
        lists: [
          { page: page([], '20') },
          { error: tooLarge(), at: 10 },
          { page: page([], '30') },
          { error: timeoutTooLarge, at: 10 },
          { page: page([], '40') },
          { error: messageTooLarge, at: 10 },
          { page: page([], '50') },
          { error: gone(), at: 10 },
          { page: page([], '60') },
        ],
        watches: [goneAfter(5_000), goneAfter(5_000), goneAfter(5_000), goneAfter(5_000)],
      },
      100_000,
    );
    expect(r.listRVs()).toEqual(['0', '20', '', '30', '', '40', '', '50', '']);
    const retryTimes = r.lw.listCalls.map((c) => c.at);
    expect(retryTimes[2]).toBe(retryTimes[1]! + 10); // immediately, no backoff
    expect(r.eventTypes().filter((t) => t === 'replace')).toHaveLength(5);

    // the "" retry happens only once; a second failure goes through backoff
    const twice = run({ lists: [{ error: expired() }, { error: expired() }, { page: page([], '1') }] }, 5_000);
    expect(twice.listRVs()).toEqual(['0', '', '']);
    expect(twice.lw.listCalls.map((c) => c.at)).toEqual([0, 0, 800]);
  });
});
