import { Observable } from 'rxjs';
import type { Logger } from '../logging/logger.js';
import type { Runnable } from '../api/runnable.js';
import { CacheSyncError, StopEngagedError } from './manager-errors.js';

/** Turns whatever `start` returned into a Promise that settles when the runnable has ended. */
export function runToCompletion(r: Runnable, signal: AbortSignal): Promise<void> {
  let result: ReturnType<Runnable['start']>;
  try {
    result = r.start(signal);
  } catch (err) {
    return Promise.reject(err);
  }
  if (result instanceof Observable) {
    const source = result;
    return new Promise<void>((resolve, reject) => {
      const sub = source.subscribe({ error: reject, complete: resolve });
      const onAbort = () => {
        sub.unsubscribe();
        resolve();
      };
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        sub.add(() => signal.removeEventListener('abort', onAbort));
      }
    });
  }
  return Promise.resolve(result).then(() => undefined);
}

/**
 * Resolves when the runnable is ready: caches once synced (`synced$` emits true, else
 * `waitForSync(signal)`; false if they gave up), HTTP servers once listening, everything else at
 * once. Rejects only if `listening` rejects.
 */
export function whenReady(r: Runnable, signal: AbortSignal): Promise<boolean> {
  const synced$ = r.synced$;
  if (synced$ !== undefined) {
    return new Promise<boolean>((resolve) => {
      let done = false;
      const held: { sub?: { unsubscribe(): void } } = {};
      const onAbort = () => finish(false);
      function finish(v: boolean) {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        held.sub?.unsubscribe();
        resolve(v);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) return finish(false);
      const sub = synced$.subscribe({
        next: (v) => {
          if (v) finish(true);
        },
        error: () => finish(false),
        complete: () => finish(false),
      });
      held.sub = sub;
      if (done) sub.unsubscribe();
    });
  }
  if (typeof r.waitForSync === 'function') return r.waitForSync(signal);
  if (r.listening !== undefined) return r.listening.then(() => true);
  return Promise.resolve(true);
}

/**
 * One of the manager's runnable groups. Runnables added before `start` wait for it; added after,
 * they start at once. `stop` aborts the group's signal; after it, `add` throws.
 */
export class RunnableGroup {
  private readonly controller = new AbortController();
  private readonly queued: Runnable[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Every runnable launched, for {@link abort}. */
  private readonly launched: Runnable[] = [];
  private started = false;
  private stopped = false;
  private synced = false;
  private readonly unready = new Set<Runnable>();

  constructor(
    readonly name: string,
    private readonly onError: (err: unknown, runnable: Runnable) => void,
    private readonly logger: Logger,
  ) {}

  /** True once started and every runnable (also those added later) is ready, until stopped. */
  get isReady(): boolean {
    return this.synced && this.unready.size === 0 && !this.stopped;
  }

  /** Names of the started runnables that are not ready yet (caches not synced, servers not listening). */
  unreadyNames(): string[] {
    return [...this.unready].map((r) => r.name ?? this.name);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  add(r: Runnable): void {
    if (this.stopped) throw new StopEngagedError();
    if (this.started) {
      void this.launch(r);
      return;
    }
    this.queued.push(r);
  }

  /** Starts queued runnables and resolves once all are ready (or the group is stopped). */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    const pending = this.queued.splice(0).map((r) => this.launch(r));
    await Promise.all(pending);
    if (!this.stopped) this.synced = true;
  }

  private launch(r: Runnable): Promise<void> {
    const signal = this.controller.signal;
    this.launched.push(r);
    const label = r.name ?? this.name;
    this.logger.debug('starting runnable', { group: this.name, runnable: label });
    const done = runToCompletion(r, signal).then(
      () => undefined,
      (err: unknown) => this.onError(err, r),
    );
    this.running.add(done);
    void done.then(() => this.running.delete(done));
    this.unready.add(r);
    return whenReady(r, signal).then(
      (ok) => {
        if (ok) this.unready.delete(r);
        else if (!signal.aborted) this.onError(new CacheSyncError(label), r);
      },
      (err: unknown) => {
        if (!signal.aborted) this.onError(err, r);
      },
    );
  }

  /**
   * Aborts the group's signal with `reason` at once (fencing: a `LeadershipLostError` tells
   * controllers to stop without grace) and calls every launched runnable's `fence(reason)` — which
   * also reaches runnables already stopping gracefully, whose signal aborted earlier without it.
   * Nothing can be added from then on. `stop` still waits.
   */
  abort(reason: unknown): void {
    this.stopped = true;
    this.controller.abort(reason);
    for (const r of this.launched) {
      try {
        r.fence?.(reason);
      } catch (err) {
        this.logger.error('fencing a runnable failed', { group: this.name, runnable: r.name ?? this.name, err });
      }
    }
  }

  /**
   * Aborts the group's signal (unless {@link abort} did) and resolves when every runnable has
   * ended or `deadline` resolves, whichever is first. Returns true if all ended.
   */
  async stop(deadline: Promise<void>): Promise<boolean> {
    this.stopped = true;
    this.controller.abort();
    const all = Promise.all([...this.running]).then(() => true);
    return Promise.race([all, deadline.then(() => false)]);
  }
}
