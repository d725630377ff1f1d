/** Runs `listWatch` over a fake transport on a VirtualTimeScheduler and records everything. */
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import type { KubeObject } from '../../src/api/kube-object.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ListWatchOptions } from '../../src/reflector/list-watch-options.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { type FakeListWatcher, type ListStep, type WatchStep, fakeListWatcher } from './fake-list-watcher.js';

export interface Run {
  readonly lw: FakeListWatcher;
  readonly events: Array<{ t: number; e: ReflectorEvent<KubeObject> }>;
  readonly statuses: Array<{ t: number; s: ReflectorStatus }>;
  error: unknown;
  errorAt: number | undefined;
  statusCompleted: boolean;
  /** `watchCalls.map(c => c.options.resourceVersion ?? '')` */
  watchRVs(): string[];
  listRVs(): string[];
  backoffs(): Array<Extract<ReflectorStatus, { type: 'backingOff' }>>;
  eventTypes(): string[];
}

/** A deterministic random source cycling through `values` (default always 0 → no jitter, min timeout). */
export function fixedRandom(...values: number[]): () => number {
  const v = values.length ? values : [0];
  let i = 0;
  return () => v[i++ % v.length] ?? 0;
}

/**
 * client-go's recovery behaviour: one shared backoff reset only after 2 quiet minutes, and no idle
 * timeout on watches. The conformance tests of the reflector rules pin client-go's numbers and run
 * in this mode; rxkube's defaults are tested in `recovery.test.ts`.
 */
export const CLIENT_GO_RECOVERY: ListWatchOptions = { sharedBackoff: true, idleTimeoutMs: 0 };

/** {@link run} in client-go's recovery mode ({@link CLIENT_GO_RECOVERY}); `options` still win. */
export function runClientGo(
  script: { lists?: ListStep[]; watches?: WatchStep[]; supportsStreamingList?: boolean },
  until: number,
  options: ListWatchOptions = {},
): Run {
  return run(script, until, { ...CLIENT_GO_RECOVERY, ...options });
}

/**
 * Runs `listWatch` over the scripted fake transport. Streaming lists are off unless `options`
 * turn them on: the scripts model list + watch (RE-1…RE-10); the WL tests opt in.
 */
export function run(
  script: { lists?: ListStep[]; watches?: WatchStep[]; supportsStreamingList?: boolean },
  until: number,
  options: ListWatchOptions = {},
): Run {
  const scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  const lw = fakeListWatcher(scheduler, script);
  const r: Run = {
    lw,
    events: [],
    statuses: [],
    error: undefined,
    errorAt: undefined,
    statusCompleted: false,
    watchRVs: () => lw.watchCalls.map((c) => c.options.resourceVersion ?? ''),
    listRVs: () => lw.listCalls.map((c) => c.options.resourceVersion ?? ''),
    backoffs: () =>
      r.statuses.map((x) => x.s).filter((s): s is Extract<ReflectorStatus, { type: 'backingOff' }> => s.type === 'backingOff'),
    eventTypes: () => r.events.map((x) => x.e.type),
  };
  const sub = listWatch(lw, {
    scheduler,
    random: fixedRandom(0),
    streamingList: false,
    ...options,
    status: {
      next: (s) => r.statuses.push({ t: scheduler.now(), s }),
      complete: () => (r.statusCompleted = true),
    },
  }).subscribe({
    next: (e) => r.events.push({ t: scheduler.now(), e }),
    error: (err: unknown) => {
      r.error = err;
      r.errorAt = scheduler.now();
    },
  });
  scheduler.schedule(() => sub.unsubscribe(), until);
  scheduler.flush();
  return r;
}
