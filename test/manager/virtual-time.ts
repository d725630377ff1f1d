import { VirtualTimeScheduler, timer } from 'rxjs';

/** Lets every pending promise callback (and I/O-free microtask chain) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A VirtualTimeScheduler plus an `advance(ms)` that interleaves timers with promise callbacks. */
export function virtualTime() {
  const scheduler = new VirtualTimeScheduler();
  const log: string[] = [];
  const advance = async (ms: number) => {
    const target = scheduler.now() + ms;
    await settle();
    for (;;) {
      const next = scheduler.actions[0];
      if (!next || next.delay > target) break;
      scheduler.maxFrames = next.delay;
      scheduler.flush();
      await settle();
    }
    scheduler.schedule(() => undefined, target - scheduler.now());
    scheduler.maxFrames = target;
    scheduler.flush();
    await settle();
  };
  /** Resolves `ms` virtual ms from now. */
  const sleep = (ms: number) => new Promise<void>((r) => timer(ms, scheduler).subscribe(() => r()));
  /** Appends `@t event` to the log. */
  const record = (event: string) => log.push(`${scheduler.now()} ${event}`);
  return { scheduler, advance, sleep, log, record };
}

export type VirtualTime = ReturnType<typeof virtualTime>;

/** Options of {@link fakeRunnable}. */
export interface FakeOptions {
  readonly needLeaderElection?: boolean;
  readonly isHttpServer?: boolean;
  /** Virtual ms until a cache reports synced. */
  readonly syncAfter?: number;
  /** Virtual ms the runnable takes to stop after its signal aborts; Infinity = never. */
  readonly stopAfter?: number;
  /** Virtual ms after start at which it fails. */
  readonly failAfter?: number;
}

/** A runnable that records start/stop/synced into the virtual-time log. */
export function fakeRunnable(vt: VirtualTime, name: string, o: FakeOptions = {}) {
  const r = {
    name,
    ...(o.needLeaderElection === undefined ? {} : { needLeaderElection: o.needLeaderElection }),
    ...(o.isHttpServer ? { isHttpServer: true } : {}),
    start(signal: AbortSignal): Promise<void> {
      vt.record(`${name}:start`);
      return new Promise<void>((resolve, reject) => {
        let failed = false;
        if (o.failAfter !== undefined) {
          void vt.sleep(o.failAfter).then(() => {
            vt.record(`${name}:fail`);
            failed = true;
            reject(new Error(`${name} failed`));
          });
        }
        signal.addEventListener('abort', () => {
          if (failed) return;
          vt.record(`${name}:abort`);
          const after = o.stopAfter ?? 0;
          if (after === Infinity) return;
          void vt.sleep(after).then(() => {
            vt.record(`${name}:stopped`);
            resolve();
          });
        });
      });
    },
  };
  if (o.syncAfter === undefined) return r;
  const syncAfter = o.syncAfter;
  return {
    ...r,
    waitForSync: async (_signal: AbortSignal) => {
      await vt.sleep(syncAfter);
      vt.record(`${name}:synced`);
      return true;
    },
  };
}

/** Observes a promise's outcome without leaving a rejection unhandled. */
export function outcome<T>(p: Promise<T>) {
  const state: { settled: boolean; at?: number; error?: unknown; value?: T } = { settled: false };
  void p.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}
