import { describe, expect, it } from 'vitest';
import { VeryShortWatchError } from '../../src/reflector/reflector-errors.js';
import {
  added,
  apiError,
  bookmark,
  connectionRefused,
  deleted,
  errorEvent,
  gone,
  internalError,
  modified,
  obj,
  page,
  tooManyRequests,
} from '../reflector/fake-list-watcher.js';
import { fixedRandom, runClientGo as run } from '../reflector/harness.js';

describe('reflector watch (docs/semantics.md §3.5)', () => {
  it('RE-7 watches from the last RV with bookmarks and a random timeoutSeconds in [min, 2·min), min ≥ 300', () => {
    const r = run({ lists: [{ page: page([], '1') }] }, 100);
    expect(r.lw.watchCalls[0]?.options).toEqual({ resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 300 });

    const top = run({ lists: [{ page: page([], '1') }] }, 100, { random: fixedRandom(0.999) });
    expect(top.lw.watchCalls[0]?.options.timeoutSeconds).toBe(599);

    const small = run({ lists: [{ page: page([], '1') }] }, 100, { minWatchTimeoutSeconds: 1, random: fixedRandom(0.5) });
    expect(small.lw.watchCalls[0]?.options.timeoutSeconds).toBe(450);

    const long = run({ lists: [{ page: page([], '1') }] }, 100, { minWatchTimeoutSeconds: 1800, random: fixedRandom(0.5) });
    expect(long.lw.watchCalls[0]?.options.timeoutSeconds).toBe(2700);
  });

  it('RE-8 429 or connection refused on watch creation backs off and re-watches without relisting', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }],
        watches: [
          { errorAt: 0, error: tooManyRequests() },
          { errorAt: 0, error: connectionRefused() },
          { errorAt: 0, error: tooManyRequests() },
          { errorAt: 0, error: tooManyRequests() },
          { events: [[10, added(obj('a', '2'))]] },
        ],
      },
      60_000,
    );
    expect(r.lw.listCalls).toHaveLength(1);
    expect(r.lw.watchCalls).toHaveLength(5);
    expect(r.watchRVs()).toEqual(['1', '1', '1', '1', '1']);
    expect(r.backoffs().map((b) => [b.next, b.delayMs])).toEqual([
      ['rewatch', 800],
      ['rewatch', 1600],
      ['rewatch', 3200],
      ['rewatch', 6400],
    ]);

    const other = run({ lists: [{ page: page([], '1') }, { page: page([], '2') }], watches: [{ errorAt: 0, error: apiError(400, 'BadRequest') }] }, 5_000);
    expect(other.lw.listCalls).toHaveLength(2);
    expect(other.backoffs()[0]?.next).toBe('relist');
  });

  it('RE-9 maps events, skips unusable objects, and propagates RVs (also bookmarks) except synthetic initial adds', () => {
    const a = obj('a', '11');
    const r = run(
      {
        lists: [{ page: page([], '10') }],
        watches: [
          {
            events: [
              [1, added(a)],
              [2, { type: 'ADDED', object: { kind: 'ConfigMap' } }],
              [3, { type: 'MODIFIED', object: { kind: 'Table', metadata: { resourceVersion: '99' } } }],
              [4, modified(obj('a', '20'))],
              [5, bookmark('30')],
              [6, deleted(obj('a', '40'))],
            ],
            closeAt: 2_000,
          },
        ],
      },
      3_000,
    );
    expect(r.events.map((x) => x.e)).toEqual([
      { type: 'replace', items: [], resourceVersion: '10' },
      { type: 'added', object: a },
      { type: 'modified', object: obj('a', '20') },
      { type: 'bookmark', resourceVersion: '30' },
      { type: 'deleted', object: obj('a', '40') },
    ]);
    expect(r.statuses.filter((x) => x.s.type === 'error').map((x) => (x.s as { action: string }).action)).toEqual([
      'skipEvent',
      'skipEvent',
    ]);
    expect(r.watchRVs()).toEqual(['10', '40']);

    // a watch from RV "0" only propagates from the first non-ADDED event on
    const initial = run(
      {
        lists: [{ page: page([], '0') }],
        watches: [
          { events: [[1, added(obj('b', '55'))], [2, added(obj('c', '32'))]], closeAt: 2_000 },
          { events: [[1, added(obj('d', '60'))], [2, modified(obj('b', '61'))], [3, added(obj('e', '62'))]], closeAt: 2_000 },
        ],
      },
      5_000,
    );
    expect(initial.watchRVs()).toEqual(['0', '0', '62']);
  });

  it('RE-10 a normal close re-watches at once from the last RV, without relisting', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }],
        watches: [{ events: [[500, added(obj('a', '5'))]], closeAt: 600 }, { closeAt: 300_000 }],
      },
      400_000,
    );
    expect(r.lw.listCalls).toHaveLength(1);
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.resourceVersion])).toEqual([
      [0, '1'],
      [600, '5'],
      [300_600, '5'],
    ]);
    expect(r.backoffs()).toEqual([]);
  });

  it('RE-10 a watch closed in under 1s with no events is a VeryShortWatchError: backoff and relist', () => {
    const r = run(
      { lists: [{ page: page([], '1') }, { page: page([], '2') }], watches: [{ closeAt: 999 }, { events: [[0, added(obj('a', '3'))]], closeAt: 10 }] },
      5_000,
    );
    const err = r.statuses.find((x) => x.s.type === 'error')?.s as { error: unknown; action: string };
    expect(err.error).toBeInstanceOf(VeryShortWatchError);
    expect(err.action).toBe('relist');
    expect(r.lw.listCalls.map((c) => c.at)).toEqual([0, 1_799]);
    // the second watch closed after 10ms but had an event: not very short, re-watched at once
    expect(r.lw.watchCalls.map((c) => c.at)).toEqual([0, 1_799, 1_809]);
  });

  it('RE-10 410 (ERROR event or HTTP) backs off and relists at the last RV (the unavailable flag stays clear)', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }, { page: page([], '8') }, { page: page([], '9') }],
        watches: [
          { events: [[100, added(obj('a', '7'))], [200, errorEvent({ code: 410, reason: 'Expired', message: 'too old' })]] },
          { errorAt: 0, error: gone() },
        ],
      },
      10_000,
    );
    expect(r.listRVs()).toEqual(['0', '7', '8']);
    expect(r.lw.listCalls.map((c) => c.at)).toEqual([0, 1_000, 2_600]);
    expect(r.eventTypes()).toEqual(['replace', 'added', 'replace', 'replace']);
    expect(r.lw.watchCalls[0]?.unsubscribedAt).toBe(200);
  });

  it('RE-10 a 429 ERROR event re-watches after a backoff of at least Retry-After', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }],
        watches: [
          { events: [[2_000, errorEvent({ code: 429, reason: 'TooManyRequests' })]] },
          { errorAt: 0, error: tooManyRequests(7) },
        ],
      },
      20_000,
    );
    expect(r.lw.listCalls).toHaveLength(1);
    expect(r.lw.watchCalls.map((c) => c.at)).toEqual([0, 2_800, 9_800]);
    expect(r.backoffs().map((b) => b.delayMs)).toEqual([800, 7_000]);
  });

  it('RE-10 500 InternalError re-watches at once within maxInternalErrorRetryMs, relists otherwise', () => {
    const fiveHundreds = Array.from({ length: 5 }, () => ({ events: [[1_000, errorEvent({ code: 500, reason: 'InternalError' })]] as const }));
    const off = run({ lists: [{ page: page([], '1') }, { page: page([], '2') }], watches: fiveHundreds }, 3_000);
    expect(off.lw.listCalls.map((c) => c.at)).toEqual([0, 1_800]);
    expect(off.lw.listCalls).toHaveLength(2);

    const on = run(
      { lists: [{ page: page([], '1') }, { page: page([], '2') }], watches: fiveHundreds },
      10_000,
      { maxInternalErrorRetryMs: 2_500 },
    );
    // errors at 1000 (window opens), 2000 and 3000 are within 2500ms of the first; 4000 is not → backoff + relist
    expect(on.lw.watchCalls.map((c) => c.at)).toEqual([0, 1_000, 2_000, 3_000, 4_800]);
    // the window does not restart (< 1 min since the previous 500), so the next 500 relists too
    expect(on.lw.listCalls.map((c) => c.at)).toEqual([0, 4_800, 7_400]);
    expect(internalError().code).toBe(500);
  });

  it('RE-10 any other watch error backs off and relists; a mid-stream connection drop re-watches', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }, { page: page([], '2') }],
        watches: [
          { events: [[3_000, added(obj('a', '2'))]], errorAt: 4_000, error: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) },
          { events: [[100, errorEvent({ code: 400, reason: 'BadRequest' })]] },
        ],
      },
      10_000,
    );
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.resourceVersion])).toEqual([
      [0, '1'],
      [4_000, '2'],
      [4_900, '2'],
    ]);
    expect(r.lw.listCalls.map((c) => c.at)).toEqual([0, 4_900]);
  });
});
