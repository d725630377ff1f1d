/** Issue 26, finding 6: a server's Retry-After is capped (maxRetryAfterMs, default 60 s), in virtual time. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../../src/reflector/list-watch-options.js';
import { page, tooManyRequests } from './fake-list-watcher.js';
import { fixedRandom, run } from './harness.js';

describe('reflector: Retry-After is capped', () => {
  it('Retry-After: 86400 on a list waits the default maximum (60 s), not a day', () => {
    const r = run({ lists: [{ error: tooManyRequests(86_400) }, { page: page([], '7') }] }, 100_000, { random: fixedRandom(0.9) });
    expect(DEFAULT_MAX_RETRY_AFTER_MS).toBe(60_000);
    expect(r.backoffs().map((b) => b.delayMs)).toEqual([60_000]);
    expect(r.lw.listCalls.map((c) => c.at)).toEqual([0, 60_000]);
  });

  it('on a watch too, and with sharedBackoff; maxRetryAfterMs changes the cap', () => {
    const watch = run({ lists: [{ page: page([], '1') }], watches: [{ errorAt: 0, error: tooManyRequests(86_400) }, {}] }, 100_000, { maxRetryAfterMs: 5_000 });
    expect(watch.backoffs().map((b) => [b.next, b.delayMs])).toEqual([['rewatch', 5_000]]);
    expect(watch.lw.watchCalls.map((c) => c.at)).toEqual([0, 5_000]);
    const shared = run({ lists: [{ error: tooManyRequests(86_400) }, { page: page([], '7') }] }, 100_000, { sharedBackoff: true });
    expect(shared.backoffs().map((b) => b.delayMs)).toEqual([60_000]);
  });

  it('a short Retry-After is still honoured as before', () => {
    const r = run({ lists: [{ error: tooManyRequests(2) }, { page: page([], '7') }] }, 10_000);
    expect(r.backoffs().map((b) => b.delayMs)).toEqual([2_000]);
  });
});
