import {
  type Observable,
  type SchedulerLike,
  asyncScheduler,
  combineLatest,
  filter,
  firstValueFrom,
  fromEvent,
  map,
  of,
  race,
  take,
  timer,
} from 'rxjs';

/** Something with a sync state: an informer, a listener handle, a factory, or a bare `synced$`. */
export type SyncSource = { readonly synced$: Observable<boolean> } | Observable<boolean>;

/** Options of {@link waitForCacheSync}. */
export interface WaitForCacheSyncOptions {
  /** Give up (resolve false) after this many ms. */
  readonly timeoutMs?: number;
  /** Give up (resolve false) when aborted (client-go's stop channel). */
  readonly signal?: AbortSignal;
  readonly scheduler?: SchedulerLike;
}

/**
 * SI-16: resolves `true` once every source reports synced at the same time, `false` if the
 * timeout passes or `signal` aborts first. Event-driven (client-go polls every 100 ms; here the
 * `synced$` streams push). With no sources it resolves `true`.
 */
export function waitForCacheSync(sources: readonly SyncSource[], options: WaitForCacheSyncOptions = {}): Promise<boolean> {
  if (options.signal?.aborted === true) return Promise.resolve(false);
  const streams = sources.map((s) => ('synced$' in s ? s.synced$ : s));
  const all$ = streams.length === 0 ? of(true) : combineLatest(streams).pipe(map((v) => v.every(Boolean)), filter(Boolean));
  const giveUp: Observable<boolean>[] = [];
  if (options.timeoutMs !== undefined) giveUp.push(timer(options.timeoutMs, options.scheduler ?? asyncScheduler).pipe(map(() => false)));
  if (options.signal !== undefined) giveUp.push(fromEvent(options.signal, 'abort').pipe(map(() => false)));
  return firstValueFrom(race(all$.pipe(take(1)), ...giveUp));
}
