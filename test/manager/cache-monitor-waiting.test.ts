/** CacheMonitor: a long reflector wait is listed (for /readyz) and logged until the next request. */
import { BehaviorSubject, Subject, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import type { Logger } from '../../src/logging/logger.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { CacheMonitor, describeWaiting } from '../../src/manager/cache-monitor.js';
import { managerMetrics } from '../../src/metrics/metrics-registry.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';

function fakeInformer(status$: Subject<ReflectorStatus>): SharedInformer {
  return {
    name: 'Pod/default',
    status$,
    errors$: new Subject<Error>(),
    handled$: new Subject(),
    lastEventAt: undefined,
    backlogs: () => new Map(),
    lastSyncResourceVersion: '',
    synced$: new BehaviorSubject(true),
    hasSynced: () => true,
    store: { size: 0 },
  } as unknown as SharedInformer;
}

describe('CacheMonitor.waiting', () => {
  it('lists a wait of at least longWaitMs while it lasts, with the last error; not shorter waits', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
    const warnings: string[] = [];
    const logger: Logger = { ...noopLogger, warn: (msg: string) => void warnings.push(msg) } as Logger;
    const monitor = new CacheMonitor({ logger, metrics: managerMetrics(), scheduler, longWaitMs: 30_000 });
    const status$ = new Subject<ReflectorStatus>();
    const sub = monitor.track({ name: 'cache', informers: [fakeInformer(status$)] });

    status$.next({ type: 'backingOff', attempt: 3, delayMs: 3_200, next: 'relist' });
    expect(monitor.waiting()).toEqual([]);

    status$.next({ type: 'error', error: new Error('too many requests'), action: 'rewatch' });
    status$.next({ type: 'backingOff', attempt: 1, delayMs: 60_000, next: 'rewatch' });
    scheduler.schedule(() => undefined, 15_000);
    scheduler.flush();
    const [w] = monitor.waiting();
    expect(w).toMatchObject({ informer: 'Pod/default', delayMs: 60_000, remainingMs: 45_000, next: 'rewatch' });
    expect(describeWaiting(w!)).toBe('informer Pod/default: waiting 60s before rewatch (45s left), the cache may be stale, last error: too many requests');
    expect(warnings).toHaveLength(1);

    status$.next({ type: 'watching', resourceVersion: '5', timeoutSeconds: 300 });
    expect(monitor.waiting()).toEqual([]);
    sub.unsubscribe();
  });
});
