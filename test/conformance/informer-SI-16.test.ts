/** docs/semantics.md §4.4 SI-16: waiting for caches to sync (pushed, not polled). */
import { BehaviorSubject, Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { waitForCacheSync } from '../../src/informer/wait-for-cache-sync.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { obj, replace } from '../informer/helpers.js';

describe('SI-16 waitForCacheSync', () => {
  it('true once every source is synced', async () => {
    const s1 = new Subject<ReflectorEvent>();
    const s2 = new Subject<ReflectorEvent>();
    const i1 = sharedInformer(s1);
    const i2 = sharedInformer(s2);
    i1.run$.subscribe();
    i2.run$.subscribe();
    let result: boolean | undefined;
    void waitForCacheSync([i1, i2]).then((r) => (result = r));
    s1.next(replace('1', obj('a', '1')));
    await Promise.resolve();
    expect(result).toBeUndefined();
    s2.next(replace('1'));
    expect(await waitForCacheSync([i1, i2])).toBe(true);
    await Promise.resolve();
    expect(result).toBe(true);
  });

  it('false when stopped (aborted) first, or when the timeout passes (virtual time)', async () => {
    const never = new BehaviorSubject(false);
    const ac = new AbortController();
    const p = waitForCacheSync([never], { signal: ac.signal });
    ac.abort();
    expect(await p).toBe(false);
    expect(await waitForCacheSync([never], { signal: ac.signal })).toBe(false);
    const scheduler = new VirtualTimeScheduler();
    const t = waitForCacheSync([never], { timeoutMs: 100, scheduler });
    scheduler.flush();
    expect(await t).toBe(false);
  });

  it('no sources: true at once', async () => {
    expect(await waitForCacheSync([])).toBe(true);
  });
});
