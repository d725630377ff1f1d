import { describe, expect, it } from 'vitest';
import {
  added,
  apiError,
  bookmark,
  deleted,
  errorEvent,
  expired,
  initialEventsEnd,
  modified,
  obj,
  page,
  tooManyRequests,
} from '../reflector/fake-list-watcher.js';
import { runClientGo as run } from '../reflector/harness.js';

describe('reflector streaming list (docs/semantics.md §3.4)', () => {
  it('WL-1 streaming lists are used only when enabled and not declared unsupported by the ListWatcher', () => {
    const off = run({ lists: [{ page: page([], '1') }] }, 100);
    expect(off.lw.listCalls).toHaveLength(1);
    expect(off.lw.watchCalls[0]?.options.sendInitialEvents).toBeUndefined();

    const on = run({}, 100, { streamingList: true });
    expect(on.lw.listCalls).toHaveLength(0);
    expect(on.lw.watchCalls[0]?.options.sendInitialEvents).toBe(true);

    const unsupported = run({ supportsStreamingList: false, lists: [{ page: page([], '1') }] }, 100, { streamingList: true });
    expect(unsupported.lw.listCalls).toHaveLength(1);
    expect(unsupported.lw.watchCalls.every((c) => c.options.sendInitialEvents === undefined)).toBe(true);
  });

  it('WL-2 the request carries sendInitialEvents, NotOlderThan, bookmarks and a random timeout at RV ""', () => {
    const r = run({}, 100, { streamingList: true });
    expect(r.lw.watchCalls[0]?.options).toEqual({
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
  });

  it('WL-3 initial events are buffered into one replace at the initial-events-end bookmark; the same watch continues', () => {
    const a = obj('a', '1');
    const b = obj('b', '2');
    const r = run(
      {
        watches: [
          {
            events: [
              [10, added(a)],
              [20, added(b)],
              [30, modified(obj('a', '3'))],
              [40, deleted(obj('b', '4'))],
              [50, bookmark('5', { 'k8s.io/initial-events-end': 'false' })],
              [60, bookmark('5')],
              [70, initialEventsEnd('6')],
              [80, added(obj('c', '7'))],
            ],
            closeAt: 5_000,
          },
        ],
      },
      5_500,
      { streamingList: true },
    );
    expect(r.events.map((x) => [x.t, x.e])).toEqual([
      [70, { type: 'replace', items: [obj('a', '3')], resourceVersion: '6' }],
      [80, { type: 'added', object: obj('c', '7') }],
    ]);
    // one streaming request; after its normal close a plain watch resumes from the last RV
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.sendInitialEvents, c.options.resourceVersion])).toEqual([
      [0, true, undefined],
      [5_000, undefined, '7'],
    ]);
    expect(r.lw.listCalls).toHaveLength(0);
  });

  it('WL-4 429 backs off and retries the stream; Expired retries at ""; an early close retries the stream', () => {
    const r = run(
      {
        watches: [
          { errorAt: 0, error: tooManyRequests() },
          { events: [[10, added(obj('a', '1'))]], closeAt: 2_000 },
          { events: [[10, errorEvent({ code: 410, reason: 'Expired' })]] },
          { events: [[10, added(obj('a', '1'))], [20, initialEventsEnd('3')]] },
        ],
      },
      10_000,
      { streamingList: true },
    );
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.sendInitialEvents])).toEqual([
      [0, true],
      [800, true],
      [2_800, true],
      [2_810, true],
    ]);
    expect(r.eventTypes()).toEqual(['replace']);
    expect(r.lw.listCalls).toHaveLength(0);
  });

  it('WL-4 Expired on an RV sets the unavailable flag: the next stream asks for ""', () => {
    const r = run(
      {
        watches: [
          { events: [[10, initialEventsEnd('5')], [20, errorEvent({ code: 410, reason: 'Gone' })]] },
          { errorAt: 0, error: expired() },
          { events: [[10, initialEventsEnd('9')]] },
        ],
      },
      10_000,
      { streamingList: true },
    );
    // after the established watch expires: backoff, then a stream at the last RV "5", which is Expired → "" at once
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.resourceVersion ?? ''])).toEqual([
      [0, ''],
      [820, '5'],
      [820, ''],
    ]);
  });

  it('WL-4 any other error falls back to a plain list + watch', () => {
    const r = run(
      {
        lists: [{ page: page([obj('a', '1')], '2') }],
        watches: [{ errorAt: 0, error: apiError(500, 'InternalError') }],
      },
      1_000,
      { streamingList: true },
    );
    expect(r.lw.listCalls.map((c) => c.at)).toEqual([0]);
    expect(r.eventTypes()).toEqual(['replace']);
    expect(r.lw.watchCalls.map((c) => c.options.sendInitialEvents)).toEqual([true, undefined]);
    expect(r.statuses.some((x) => x.s.type === 'error' && x.s.action === 'fallbackToList')).toBe(true);
  });

  it('WL-5 a streaming list refused as invalid (400/422) is not tried again: later cycles list and watch', () => {
    const refused = run(
      {
        lists: [{ page: page([obj('a', '1')], '2') }, { page: page([obj('a', '1')], '3') }],
        watches: [{ errorAt: 0, error: apiError(422, 'Invalid') }, { errorAt: 100, error: expired() }],
      },
      60_000,
      { streamingList: true },
    );
    expect(refused.lw.listCalls).toHaveLength(2);
    // the refusal is how such a server says no: not reported as a failure (the list that follows would be)
    expect(refused.statuses.filter((x) => x.s.type === 'error' && x.s.action === 'fallbackToList')).toEqual([]);
    expect(refused.lw.watchCalls.map((c) => c.options.sendInitialEvents)).toEqual([true, undefined, undefined]);

    // Any other error falls back for that cycle only (WL-4): the next cycle streams again.
    const transient = run(
      {
        lists: [{ page: page([obj('a', '1')], '2') }],
        watches: [{ errorAt: 0, error: apiError(500, 'InternalError') }, { errorAt: 100, error: expired() }],
      },
      60_000,
      { streamingList: true },
    );
    expect(transient.lw.listCalls).toHaveLength(1);
    expect(transient.lw.watchCalls.map((c) => c.options.sendInitialEvents)).toEqual([true, undefined, true]);
  });
});
