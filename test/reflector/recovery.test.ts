/**
 * rxkube's recovery defaults (the conformance tests pin client-go's in `sharedBackoff` mode): a
 * backoff per cause, reset by health rather than by 2 quiet minutes, and stall detection on.
 */
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/client/network-error.js';
import { ListTimeoutError } from '../../src/reflector/list-pages.js';
import { ReflectorConfigError, WatchStalledError } from '../../src/reflector/reflector-errors.js';
import { backoffCause } from '../../src/reflector/reflector-run.js';
import { added, apiError, bookmark, connectionRefused, gone, internalError, obj, page, tooManyRequests } from './fake-list-watcher.js';
import type { ListStep, WatchStep } from './fake-list-watcher.js';
import { fixedRandom, run } from './harness.js';

const refused = (n: number): ListStep[] => Array.from({ length: n }, () => ({ error: connectionRefused() }));
const reset = () => new NetworkError('GET', '/api/v1/configmaps', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));

describe('reflector recovery: a backoff per cause', () => {
  it('refused lists back off 100 ms ×2 up to 2 s; 5xx answers 250 ms ×2 up to 4 s; other errors 800 ms ×2 up to 30 s', () => {
    const conn = run({ lists: refused(8) }, 60_000);
    expect(conn.backoffs().map((b) => [b.backoff, b.delayMs])).toEqual(
      [100, 200, 400, 800, 1600, 2000, 2000, 2000].map((d) => ['connection', d]),
    );
    const server = run({ lists: Array.from({ length: 7 }, () => ({ error: internalError() })) }, 60_000);
    expect(server.backoffs().map((b) => [b.backoff, b.delayMs])).toEqual(
      [250, 500, 1000, 2000, 4000, 4000, 4000].map((d) => ['serverError', d]),
    );
    const other = run({ lists: Array.from({ length: 4 }, () => ({ error: apiError(400, 'BadRequest') })) }, 60_000);
    expect(other.backoffs().map((b) => [b.backoff, b.delayMs])).toEqual([800, 1600, 3200, 6400].map((d) => ['general', d]));
  });

  it('jitter of the connection and server-error backoffs is [d, 1.5d)', () => {
    const r = run({ lists: [...refused(2), { error: internalError() }] }, 10_000, { random: fixedRandom(0.999) });
    const d = r.backoffs().map((b) => b.delayMs);
    expect(d[0]).toBeCloseTo(149.95);
    expect(d[1]).toBeCloseTo(299.9);
    expect(d[2]).toBeCloseTo(374.875);
  });

  it('each backoff keeps its own count: refusals do not lengthen the wait after a 500, nor the reverse', () => {
    const r = run({ lists: [...refused(3), { error: internalError() }, ...refused(1), { error: internalError() }] }, 60_000);
    expect(r.backoffs().map((b) => [b.backoff, b.attempt, b.delayMs])).toEqual([
      ['connection', 1, 100],
      ['connection', 2, 200],
      ['connection', 3, 400],
      ['serverError', 1, 250],
      ['connection', 4, 800],
      ['serverError', 2, 500],
    ]);
  });

  it('the options change each backoff; sharedBackoff uses the general one for everything', () => {
    const custom = run({ lists: [...refused(3), { error: tooManyRequests() }] }, 60_000, {
      connectionBackoff: { initialMs: 10, maxMs: 30, jitter: 0 },
      serverErrorBackoff: { initialMs: 7, jitter: 0 },
    });
    expect(custom.backoffs().map((b) => b.delayMs)).toEqual([10, 20, 30, 7]);
    const shared = run({ lists: [...refused(2), { error: internalError() }] }, 60_000, { sharedBackoff: true });
    expect(shared.backoffs().map((b) => [b.backoff, b.delayMs])).toEqual([
      ['general', 800],
      ['general', 1600],
      ['general', 3200],
    ]);
  });

  it('rejects invalid per-cause backoff options', () => {
    expect(run({}, 10, { connectionBackoff: { initialMs: -1 } }).error).toBeInstanceOf(ReflectorConfigError);
    expect(run({}, 10, { serverErrorBackoff: { factor: 0.5 } }).error).toBeInstanceOf(ReflectorConfigError);
  });

  it('classifies errors by cause', () => {
    expect(backoffCause(connectionRefused())).toBe('connection');
    expect(backoffCause(reset())).toBe('connection');
    expect(backoffCause(new WatchStalledError(1, '1'))).toBe('connection');
    expect(backoffCause(new ListTimeoutError(1))).toBe('connection');
    expect(backoffCause(internalError())).toBe('serverError');
    expect(backoffCause(apiError(503, 'ServiceUnavailable'))).toBe('serverError');
    expect(backoffCause(tooManyRequests())).toBe('serverError');
    expect(backoffCause(gone())).toBe('general');
    expect(backoffCause(apiError(403, 'Forbidden'))).toBe('general');
    expect(backoffCause(new Error('boom'))).toBe('general');
  });
});

describe('reflector recovery: reset by health, not by time', () => {
  it('a successful list resets the connection backoff at once', () => {
    const r = run(
      {
        lists: [...refused(4), { page: page([], '1') }, ...refused(2), { page: page([], '2') }],
        watches: [{ errorAt: 10, error: apiError(400, 'BadRequest') }],
      },
      60_000,
    );
    expect(r.backoffs().map((b) => [b.backoff, b.attempt])).toEqual([
      ['connection', 1],
      ['connection', 2],
      ['connection', 3],
      ['connection', 4],
      ['general', 1],
      ['connection', 1],
      ['connection', 2],
    ]);
  });

  it('a watch open for watchHealthyMs resets all three, the general one included; events sooner do not', () => {
    const script = (errorAt: number): { lists: ListStep[]; watches: WatchStep[] } => ({
      lists: [{ page: page([], '1') }, { error: apiError(400, 'BadRequest') }, { page: page([], '2') }, { page: page([], '3') }],
      watches: [
        { errorAt: 10, error: apiError(400, 'BadRequest') },
        { events: [[10, bookmark('4')] as const], errorAt, error: apiError(400, 'BadRequest') },
      ],
    });
    const healthy = run(script(30_000), 120_000);
    expect(healthy.backoffs().map((b) => [b.backoff, b.attempt, b.delayMs])).toEqual([
      ['general', 1, 800],
      ['general', 2, 1600],
      ['general', 1, 800],
    ]);
    // a bookmark 10 ms in, then the error: the watch never proved healthy, the backoff grows
    const early = run(script(20), 120_000);
    expect(early.backoffs().map((b) => [b.backoff, b.attempt, b.delayMs])).toEqual([
      ['general', 1, 800],
      ['general', 2, 1600],
      ['general', 3, 3200],
    ]);
  });

  it('the 10th fault in 10 minutes recovers as fast as the first (sharedBackoff: it escalates)', () => {
    // each minute the watch drops, the server refuses 5 connections, then the watch works again
    const faults = 10;
    const watches: WatchStep[] = [];
    const lists: ListStep[] = [{ page: page([], '1') }];
    for (let f = 0; f < faults; f++) {
      watches.push({ events: [[1_000, added(obj(`a${f}`, String(10 * f + 2)))]], errorAt: 60_000, error: reset() });
      for (let i = 0; i < 5; i++) watches.push({ errorAt: 0, error: connectionRefused() });
    }
    watches.push({ events: [[1_000, bookmark('999')]] });
    const fast = run({ lists, watches }, 700_000);
    const waitsPerFault = (r: ReturnType<typeof run>): number[] =>
      Array.from({ length: faults }, (_, f) => r.backoffs().slice(f * 5, f * 5 + 5).reduce((sum, b) => sum + b.delayMs, 0));
    expect(fast.lw.listCalls).toHaveLength(1);
    expect(fast.backoffs()).toHaveLength(faults * 5);
    // 100 + 200 + 400 + 800 + 1600 ms of waiting per fault, every time
    expect(waitsPerFault(fast)).toEqual(Array.from({ length: faults }, () => 3_100));
    // client-go: one backoff, never 2 minutes without a delay, so the 10th fault waits 30 s a time
    const shared = run({ lists, watches }, 2_200_000, { sharedBackoff: true, idleTimeoutMs: 0 });
    expect(shared.backoffs()[faults * 5 - 1]?.attempt).toBe(faults * 5);
    expect(waitsPerFault(shared)).toEqual([24_800, 145_600, ...Array.from({ length: faults - 2 }, () => 150_000)]);
  });
});

describe('reflector recovery: which request follows', () => {
  it('a reset or unreachable connection on watch creation re-watches from the same version (no relist)', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }],
        watches: [{ errorAt: 0, error: reset() }, { errorAt: 0, error: connectionRefused() }, { events: [[10, added(obj('a', '2'))]] }],
      },
      10_000,
    );
    expect(r.lw.listCalls).toHaveLength(1);
    expect(r.watchRVs()).toEqual(['1', '1', '1']);
    expect(r.backoffs().map((b) => [b.next, b.backoff, b.delayMs])).toEqual([
      ['rewatch', 'connection', 100],
      ['rewatch', 'connection', 200],
    ]);
  });

  it('an expired version after a healthy watch relists at once; expiring again before any event backs off', () => {
    const r = run(
      {
        lists: [{ page: page([], '1') }, { page: page([], '5') }, { page: page([], '6') }],
        watches: [{ events: [[100, added(obj('a', '2'))]], errorAt: 200, error: gone() }, { errorAt: 5, error: gone() }, {}],
      },
      10_000,
    );
    expect(r.lw.listCalls.map((c) => [c.at, c.options.resourceVersion])).toEqual([
      [0, '0'],
      [200, '2'],
      [205 + 1_600, '5'],
    ]);
    expect(r.backoffs().map((b) => [b.backoff, b.attempt])).toEqual([['general', 2]]);
  });

  it('a stalled watch is resumed from its version after the connection backoff: one request per false alarm', () => {
    const r = run({ lists: [{ page: page([], '1') }], watches: [{}, {}, {}] }, 300_000);
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.resourceVersion])).toEqual([
      [0, '1'],
      [120_100, '1'],
      [240_200, '1'], // 100 ms again: two minutes since the previous delay also reset it
    ]);
    expect(r.lw.listCalls).toHaveLength(1);
    expect(r.statuses.filter((x) => x.s.type === 'error').map((x) => (x.s as { error: unknown }).error)).toEqual([
      expect.any(WatchStalledError),
      expect.any(WatchStalledError),
    ]);
  });
});
