/**
 * Issue 26, finding 5 (relist storm): watches that fail right after good lists must not reset the
 * backoff through those lists (or through one good event), so persistent watch failure relists
 * ever more slowly — at most a few times a minute — rather than every few hundred ms.
 */
import { describe, expect, it } from 'vitest';
import { apiError, added, errorEvent, internalError, obj, page } from './fake-list-watcher.js';
import type { ListStep, WatchStep } from './fake-list-watcher.js';
import { run } from './harness.js';

const goodLists = (n: number): ListStep[] => Array.from({ length: n }, (_, i) => ({ page: page([], String(i + 1)) }));

describe('reflector: persistent watch failure after good lists', () => {
  it('a watch answering 500 after every good list relists ever more slowly, a few times a minute at most', () => {
    const watches: WatchStep[] = Array.from({ length: 200 }, () => ({ errorAt: 0, error: internalError() }));
    const r = run({ lists: goodLists(200), watches }, 180_000);
    const listsIn = (from: number, to: number) => r.lw.listCalls.filter((c) => c.at >= from && c.at < to).length;
    // old behaviour: every good list reset the server-error backoff → a relist every ~250 ms
    expect(listsIn(0, 60_000)).toBeLessThanOrEqual(10);
    expect(listsIn(60_000, 180_000)).toBeLessThanOrEqual(6);
    const delays = r.backoffs().map((b) => b.delayMs);
    for (let i = 1; i < Math.min(delays.length, 6); i++) expect(delays[i]).toBeGreaterThan(delays[i - 1] as number);
  });

  it('a watch ERROR event after one good event does not reset the backoff either', () => {
    const watches: WatchStep[] = Array.from({ length: 200 }, (_, i) => ({
      events: [
        [1, added(obj(`a${i}`, String(1000 + i)))],
        [2, errorEvent({ kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: 'etcd hiccup' })],
      ],
    }));
    const r = run({ lists: goodLists(200), watches }, 120_000);
    expect(r.lw.listCalls.filter((c) => c.at < 60_000).length).toBeLessThanOrEqual(10);
    expect(r.lw.listCalls.filter((c) => c.at >= 60_000).length).toBeLessThanOrEqual(4);
  });

  it('a 410 ERROR event after one good event relists at once only the first time', () => {
    const watches: WatchStep[] = Array.from({ length: 200 }, (_, i) => ({
      events: [
        [1, added(obj(`a${i}`, String(1000 + i)))],
        [2, errorEvent({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' })],
      ],
    }));
    const r = run({ lists: goodLists(200), watches }, 60_000);
    expect(r.lw.listCalls.length).toBeLessThanOrEqual(10);
  });

  it('a watch that stayed open for watchHealthyMs resets the backoffs: the next failure is retried quickly', () => {
    const r = run(
      {
        lists: goodLists(4),
        watches: [{ errorAt: 0, error: internalError() }, { errorAt: 0, error: internalError() }, { errorAt: 40_000, error: apiError(500, 'InternalError') }, {}],
      },
      200_000,
    );
    const relists = r.backoffs().map((b) => [b.attempt, b.delayMs]);
    expect(relists[2]).toEqual([1, 800]);
  });
});
