import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createBackoff } from '../../src/reflector/backoff.js';
import { gone, internalError, obj, page } from '../reflector/fake-list-watcher.js';
import { fixedRandom, runClientGo as run } from '../reflector/harness.js';

const failures = (n: number) => Array.from({ length: n }, () => ({ error: internalError() }));

describe('reflector backoff (docs/semantics.md §3.1)', () => {
  it('BO-1 delays 800ms ×2 up to a 30s cap, jittered into [d, 2d), shared by the relist loop', () => {
    const r = run({ lists: failures(10) }, 400_000, { listTimeoutMs: 0 });
    expect(r.backoffs().map((b) => b.delayMs)).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000]);
    // each relist starts exactly when its backoff ends (sliding: the wait starts after the failure)
    expect(r.lw.listCalls.map((c) => c.at).slice(0, 4)).toEqual([0, 800, 2400, 5600]);

    const jittered = run({ lists: failures(3) }, 10_000, { random: fixedRandom(0.5, 0.999) });
    const d = jittered.backoffs().map((b) => b.delayMs);
    expect(d[0]).toBe(1200); // 800 + 0.5·800
    expect(d[1]).toBeCloseTo(1600 + 0.999 * 1600); // < 2·1600
    expect(d[1]).toBeLessThan(3200);

    const custom = run({ lists: failures(5) }, 1_000, { backoff: { initialMs: 10, factor: 2, maxMs: 100, jitter: 0 } });
    expect(custom.backoffs().map((b) => b.delayMs)).toEqual([10, 20, 40, 80, 100]);
    expect(custom.backoffs().reduce((s, b) => s + b.delayMs, 0)).toBe(250);
  });

  it('BO-2 (≤ 1.35 semantics) resets only when the previous delay request is more than 2 minutes old', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const b = createBackoff({ jitter: 0 }, scheduler);
    const at = (t: number, fn: () => void) => scheduler.schedule(fn, t);
    const seen: Array<[number, number]> = [];
    // requests 90 s apart never reset (HEAD's "reset every 2 minutes" would reset at ~120 s)
    for (const t of [0, 90_000, 180_000, 270_000]) at(t, () => seen.push([t, b.next().delayMs]));
    // 121 s after the previous request → reset to 800
    at(391_000, () => seen.push([391_000, b.next().delayMs]));
    scheduler.flush();
    expect(seen).toEqual([
      [0, 800],
      [90_000, 1600],
      [180_000, 3200],
      [270_000, 6400],
      [391_000, 800],
    ]);
  });

  it('BO-2 a watch healthy for over 2 minutes makes the next failure start again at 800ms', () => {
    const healthy = run(
      {
        lists: [{ error: internalError() }, { error: internalError() }, { page: page([obj('a', '5')], '5') }, { page: page([], '9') }],
        watches: [{ errorAt: 121_000, error: gone() }],
      },
      200_000,
    );
    expect(healthy.backoffs().map((b) => [b.attempt, b.delayMs])).toEqual([
      [1, 800],
      [2, 1600],
      [1, 800],
    ]);
    const flapping = run(
      {
        lists: [{ error: internalError() }, { error: internalError() }, { page: page([obj('a', '5')], '5') }, { page: page([], '9') }],
        watches: [{ errorAt: 60_000, error: gone() }],
      },
      200_000,
    );
    expect(flapping.backoffs().map((b) => b.delayMs)).toEqual([800, 1600, 3200]);
  });
});
