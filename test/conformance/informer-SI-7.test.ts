/** docs/semantics.md §4.3 SI-7: determineResyncPeriod and the 1 s minimum. */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MIN_RESYNC_PERIOD_MS, clampResyncPeriod, determineResyncPeriod } from '../../src/informer/resync-period.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';

describe('SI-7 determineResyncPeriod(desired, check)', () => {
  it('0 when either is 0, check when desired is smaller, else desired; minimum 1 s', () => {
    expect(determineResyncPeriod(0, 1000)).toBe(0);
    expect(determineResyncPeriod(5000, 0)).toBe(0);
    expect(determineResyncPeriod(500, 1000)).toBe(1000);
    expect(determineResyncPeriod(3000, 1000)).toBe(3000);
    expect(determineResyncPeriod(1000, 1000)).toBe(1000);
    expect(MIN_RESYNC_PERIOD_MS).toBe(1000);
    expect(clampResyncPeriod(1)).toBe(1000);
    expect(clampResyncPeriod(0)).toBe(0);
    expect(clampResyncPeriod(2500)).toBe(2500);
  });

  it('an informer default below 1 s is raised to 1 s', () => {
    const informer = sharedInformer(new Subject<ReflectorEvent>(), { defaultResyncPeriodMs: 200 });
    expect(informer.resyncCheckPeriodMs).toBe(1000);
  });
});
