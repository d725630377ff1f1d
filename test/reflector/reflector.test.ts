import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { reflector } from '../../src/reflector/reflector.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { fakeListWatcher, internalError, page } from './fake-list-watcher.js';

describe('reflector()', () => {
  it('exposes the status of events$ as status$ and still feeds options.status', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const lw = fakeListWatcher(scheduler, { lists: [{ error: internalError() }, { page: page([], '1') }] });
    const fromOption: string[] = [];
    const { events$, status$ } = reflector(lw, { scheduler, random: () => 0, streamingList: false, status: { next: (s) => fromOption.push(s.type) } });
    const seen: ReflectorStatus[] = [];
    status$.subscribe((s) => seen.push(s));
    const sub = events$.subscribe();
    scheduler.schedule(() => sub.unsubscribe(), 5_000);
    scheduler.flush();
    expect(seen.map((s) => s.type)).toEqual(['connecting', 'listing', 'error', 'backingOff', 'connecting', 'listing', 'listed', 'watching']);
    expect(seen[3]).toEqual({ type: 'backingOff', attempt: 1, delayMs: 250, next: 'relist', backoff: 'serverError' });
    expect(fromOption).toEqual(seen.map((s) => s.type));
  });
});
