import { type SchedulerLike, Subscription } from 'rxjs';
import type { KubeClient } from '../client/kube-client.js';
import type { InformerMonitor, MonitoredInformers } from '../informer/informer-monitor.js';
import type { SharedInformer } from '../informer/shared-informer-interface.js';
import { ListWatchError } from '../informer/list-watch-error.js';
import type { Logger } from '../logging/logger.js';
import { informerMetrics } from '../metrics/informer-metrics.js';
import type { ManagerMetrics } from '../metrics/metrics-registry.js';
import { reflectorStatusMetrics } from '../metrics/reflector-status-metrics.js';
import { approximateStoreBytes } from '../metrics/store-bytes-estimate.js';
import type { ReflectorStatus } from '../reflector/reflector-status.js';

/** Why one informer has not synced, as far as its monitor knows. */
export interface UnsyncedInformer {
  /** The informer's name (e.g. `Pod/default`). */
  readonly informer: string;
  /** The cache runnable that runs it. */
  readonly cache: string;
  /** The API server it lists from, when known. */
  readonly server?: string;
  /** The last failed list or watch (the client's error), if any. */
  readonly lastError?: unknown;
  /** What its reflector did last (`listing`, `backingOff`, …), if it reported anything. */
  readonly lastStatus?: string;
  /** How long it has run without syncing, in ms. */
  readonly waitingMs: number;
}

/** An informer whose reflector is in a long wait before its next request: its cache may be stale. */
export interface WaitingInformer {
  /** The informer's name (e.g. `Pod/default`). */
  readonly informer: string;
  /** The API server it lists from, when known. */
  readonly server?: string;
  /** The whole wait in ms (a grown backoff, or the server's capped `Retry-After`). */
  readonly delayMs: number;
  /** How much of it is left, in ms. */
  readonly remainingMs: number;
  /** What the reflector does after it: relist, rewatch, … */
  readonly next: string;
  /** The error that caused the wait, if one was reported. */
  readonly lastError?: unknown;
}

/**
 * A synced informer whose list/watch has kept failing (no watch has worked since the first
 * failure) for at least the threshold: its cache is stale and will stay so until it recovers.
 */
export interface FailingInformer {
  /** The informer's name (e.g. `Pod/default`). */
  readonly informer: string;
  /** The API server it lists from, when known. */
  readonly server?: string;
  /** How long it has been failing, in ms (since the first failure after its last working watch). */
  readonly failingForMs: number;
  /** The threshold it passed, in ms. */
  readonly thresholdMs: number;
  /** Failed lists and watches since then. */
  readonly failures: number;
  /** The last of them. */
  readonly lastError?: unknown;
  /** What its reflector did last (`backingOff`, `watching`, …). */
  readonly lastStatus?: string;
}

/** Default `longWaitMs` of {@link CacheMonitor}. */
export const DEFAULT_LONG_WAIT_MS = 30_000;

/**
 * Default `watchFailureThresholdMs` of {@link CacheMonitor} (2 minutes): a synced informer whose
 * list/watch keeps failing this long makes `/readyz` fail. Long enough to ride out an API server
 * restart or rolling upgrade (the reflector retries with a backoff capped at 30 s before jitter,
 * so this is at least two retries at the cap, several more before it) without flapping readiness; short next to a watch's natural
 * length (5 to 10 minutes), and the same budget as the manager's default `cacheSyncTimeoutMs`
 * for a cache that is not usable.
 */
export const DEFAULT_WATCH_FAILURE_THRESHOLD_MS = 120_000;

/**
 * A watch open this long without an error (or one that delivered an event) proves the
 * list/watch works again: it ends a failure streak. A watch cut sooner than this every time is
 * still failing.
 */
export const WORKING_WATCH_MS = 30_000;

/** Options of {@link CacheMonitor}. */
export interface CacheMonitorOptions {
  readonly logger: Logger;
  readonly metrics: ManagerMetrics;
  readonly scheduler: SchedulerLike;
  /** A failing informer logs at most once per this many ms (the others are counted). Default 30 000. */
  readonly errorLogIntervalMs?: number;
  /**
   * A reflector wait at least this long (a backoff, a server's `Retry-After`) is a long wait: it is
   * logged, and listed by {@link CacheMonitor.waiting} (which the manager's `/readyz` reports)
   * until it is over. Default {@link DEFAULT_LONG_WAIT_MS} (30 s).
   */
  readonly longWaitMs?: number;
  /** Attaches the REST client metrics to a client the informers use (once per client). */
  readonly observeClient?: (client: KubeClient) => void;
  /**
   * A synced informer whose list/watch has failed for this long, with no working watch since the
   * first failure, is listed by {@link CacheMonitor.failing} (which the manager's `/readyz`
   * reports). Default {@link DEFAULT_WATCH_FAILURE_THRESHOLD_MS} (2 minutes); 0 turns it off.
   */
  readonly watchFailureThresholdMs?: number;
}

interface Tracked {
  readonly informer: SharedInformer;
  readonly cache: string;
  readonly server: string | undefined;
  readonly startedAt: number;
  syncedAt: number | undefined;
  lastError: unknown;
  lastStatus: string | undefined;
  /** Failures since the last successful list. */
  failures: number;
  failingSince: number | undefined;
  lastLoggedAt: number | undefined;
  suppressed: number;
  /** The current long wait, until the reflector sends its next request. */
  wait: { readonly delayMs: number; readonly until: number; readonly next: string } | undefined;
  /** When the current failure streak began (first failure since the last working watch). */
  streakSince: number | undefined;
  /** Failures in the current streak. */
  streakFailures: number;
  /** When the current watch was requested; unset while not watching. */
  watchOpenedAt: number | undefined;
  /** Watches opened so far. */
  watches: number;
  /** The open request began as a streaming list (its `watching` at the bookmark is the same watch). */
  streamed: boolean;
}

/**
 * The manager's {@link InformerMonitor}: for every informer its caches run, it feeds the reflector
 * metrics, logs failed lists and watches (rate-limited per informer on the manager's scheduler)
 * and recoveries, and remembers the last error, so that a cache that does not sync can say why
 * ({@link CacheMonitor.unsynced}).
 */
export class CacheMonitor implements InformerMonitor {
  private readonly tracked = new Set<Tracked>();
  private readonly intervalMs: number;
  private readonly longWaitMs: number;
  private readonly failureThresholdMs: number;

  constructor(private readonly o: CacheMonitorOptions) {
    this.intervalMs = o.errorLogIntervalMs ?? 30_000;
    this.longWaitMs = o.longWaitMs ?? DEFAULT_LONG_WAIT_MS;
    this.failureThresholdMs = o.watchFailureThresholdMs ?? DEFAULT_WATCH_FAILURE_THRESHOLD_MS;
  }

  track(target: MonitoredInformers): Subscription {
    const subscription = new Subscription();
    if (target.client !== undefined) this.o.observeClient?.(target.client);
    const server = target.client?.connection.server.origin;
    for (const informer of target.informers) {
      const t: Tracked = {
        informer,
        cache: target.name,
        server,
        startedAt: this.o.scheduler.now(),
        syncedAt: undefined,
        lastError: undefined,
        lastStatus: undefined,
        failures: 0,
        failingSince: undefined,
        lastLoggedAt: undefined,
        suppressed: 0,
        wait: undefined,
        streakSince: undefined,
        streakFailures: 0,
        watchOpenedAt: undefined,
        watches: 0,
        streamed: false,
      };
      this.tracked.add(t);
      subscription.add(() => this.tracked.delete(t));
      const metrics = reflectorStatusMetrics(this.o.metrics.reflector, informer.name);
      const pipeline = informerMetrics(this.o.metrics.registry);
      subscription.add(
        pipeline.track({
          name: informer.name,
          objects: () => informer.store.size,
          approximateBytes: () => approximateStoreBytes(informer.store),
          lastEventAgeSeconds: () => (informer.lastEventAt === undefined ? undefined : (this.o.scheduler.now() - informer.lastEventAt) / 1000),
          backlogs: () => informer.backlogs(),
          resourceVersion: () => informer.lastSyncResourceVersion,
        }),
      );
      subscription.add(informer.handled$.subscribe((h) => pipeline.handled(informer.name, h.listener, h.durationMs / 1000)));
      subscription.add(
        informer.status$.subscribe((status) => {
          metrics.next?.(status);
          this.noteStreak(t, status);
          // A streaming list goes on as the watch at its bookmark (`listed`, then `watching`): one watch.
          const streamGoesOn = status.type === 'watching' && t.streamed && t.lastStatus === 'listed';
          if (status.type === 'streaming') t.streamed = true;
          else if (status.type === 'listing' || status.type === 'connecting') t.streamed = false;
          if ((status.type === 'watching' || status.type === 'streaming') && !streamGoesOn && t.watches++ > 0) pipeline.watchRestarted(informer.name);
          t.lastStatus = status.type;
          if (status.type === 'backingOff') this.noteWait(t, status.delayMs, status.next);
          else if (status.type !== 'error') t.wait = undefined;
          if (status.type === 'error') {
            t.lastError = status.error;
            t.failures++;
            t.failingSince ??= this.o.scheduler.now();
          } else if (status.type === 'listed' && t.failures > 0) {
            this.o.logger.info('list/watch recovered', {
              informer: informer.name,
              failures: t.failures,
              downMs: this.o.scheduler.now() - (t.failingSince ?? t.startedAt),
            });
            t.failures = 0;
            t.failingSince = undefined;
            t.suppressed = 0;
            t.lastLoggedAt = undefined;
          }
        }),
      );
      subscription.add(informer.errors$.subscribe((err) => this.logError(t, err)));
      subscription.add(
        informer.synced$.subscribe((synced) => {
          if (!synced || t.syncedAt !== undefined) return;
          t.syncedAt = this.o.scheduler.now();
          this.o.logger.debug('informer synced', { informer: informer.name, objects: informer.store.size, durationMs: t.syncedAt - t.startedAt });
        }),
      );
    }
    return subscription;
  }

  /** Informers being tracked and the objects in their caches. */
  summary(): { readonly informers: number; readonly objects: number } {
    let objects = 0;
    for (const t of this.tracked) objects += t.informer.store.size;
    return { informers: this.tracked.size, objects };
  }

  /** The tracked informers that have not synced, with what is known about why. */
  unsynced(): UnsyncedInformer[] {
    const now = this.o.scheduler.now();
    return [...this.tracked]
      .filter((t) => !t.informer.hasSynced())
      .map((t) => ({
        informer: t.informer.name,
        cache: t.cache,
        waitingMs: now - t.startedAt,
        ...(t.server === undefined ? {} : { server: t.server }),
        ...(t.lastError === undefined ? {} : { lastError: t.lastError }),
        ...(t.lastStatus === undefined ? {} : { lastStatus: t.lastStatus }),
      }));
  }

  /**
   * The tracked informers whose reflector is in a long wait (at least `longWaitMs`) right now: its
   * cache may be stale until the wait is over. The manager's `/readyz` names each.
   */
  waiting(): WaitingInformer[] {
    const now = this.o.scheduler.now();
    const out: WaitingInformer[] = [];
    for (const t of this.tracked) {
      if (t.wait === undefined || t.wait.until <= now) continue;
      out.push({
        informer: t.informer.name,
        delayMs: t.wait.delayMs,
        remainingMs: t.wait.until - now,
        next: t.wait.next,
        ...(t.server === undefined ? {} : { server: t.server }),
        ...(t.lastError === undefined ? {} : { lastError: t.lastError }),
      });
    }
    return out;
  }

  /**
   * The tracked synced informers whose list/watch has kept failing for at least
   * `watchFailureThresholdMs`, with no working watch since (see {@link WORKING_WATCH_MS}): their
   * caches are stale. The manager's `/readyz` names each.
   */
  failing(): FailingInformer[] {
    if (this.failureThresholdMs <= 0) return [];
    const now = this.o.scheduler.now();
    const out: FailingInformer[] = [];
    for (const t of this.tracked) {
      this.endStreakIfWatchWorks(t, now);
      if (t.syncedAt === undefined || t.streakSince === undefined || now - t.streakSince < this.failureThresholdMs) continue;
      out.push({
        informer: t.informer.name,
        failingForMs: now - t.streakSince,
        thresholdMs: this.failureThresholdMs,
        failures: t.streakFailures,
        ...(t.server === undefined ? {} : { server: t.server }),
        ...(t.lastError === undefined ? {} : { lastError: t.lastError }),
        ...(t.lastStatus === undefined ? {} : { lastStatus: t.lastStatus }),
      });
    }
    return out;
  }

  /** Failure streaks: a failure starts one (or counts in it); a working watch ends it. */
  private noteStreak(t: Tracked, status: ReflectorStatus): void {
    const now = this.o.scheduler.now();
    this.endStreakIfWatchWorks(t, now);
    switch (status.type) {
      case 'watching':
      case 'streaming':
        t.watchOpenedAt = now;
        break;
      case 'error':
        if (status.action === 'skipEvent') break; // one unusable event; the watch goes on
        t.streakSince ??= now;
        t.streakFailures++;
        t.watchOpenedAt = undefined;
        break;
      case 'listing':
      case 'connecting':
      case 'backingOff':
        t.watchOpenedAt = undefined;
        break;
      default:
        break;
    }
  }

  /** The current watch has been open {@link WORKING_WATCH_MS} without error, or delivered an event: the streak is over. */
  private endStreakIfWatchWorks(t: Tracked, now: number): void {
    if (t.streakSince === undefined || t.watchOpenedAt === undefined) return;
    const lastEventAt = t.informer.lastEventAt;
    if (now - t.watchOpenedAt >= WORKING_WATCH_MS || (lastEventAt !== undefined && lastEventAt > t.watchOpenedAt)) {
      t.streakSince = undefined;
      t.streakFailures = 0;
    }
  }

  private noteWait(t: Tracked, delayMs: number, next: string): void {
    if (delayMs < this.longWaitMs) {
      t.wait = undefined;
      return;
    }
    t.wait = { delayMs, until: this.o.scheduler.now() + delayMs, next };
    this.o.logger.warn('list/watch waits long before retrying; the cache may be stale meanwhile', {
      informer: t.informer.name,
      ...(t.server === undefined ? {} : { server: t.server }),
      waitMs: Math.round(delayMs),
      next,
    });
  }

  /** First failure at once, then at most one line per interval per informer, counting the rest. */
  private logError(t: Tracked, err: Error): void {
    const now = this.o.scheduler.now();
    if (t.lastLoggedAt !== undefined && now - t.lastLoggedAt < this.intervalMs) {
      t.suppressed++;
      return;
    }
    const fields = {
      informer: t.informer.name,
      ...(t.server === undefined ? {} : { server: t.server }),
      err: err instanceof ListWatchError ? err.cause : err,
      ...(t.suppressed > 0 ? { suppressed: t.suppressed } : {}),
      ...(t.failures > 1 ? { failures: t.failures } : {}),
    };
    t.lastLoggedAt = now;
    t.suppressed = 0;
    const message = err instanceof ListWatchError ? 'list/watch failed, retrying' : 'informer error';
    this.o.logger.warn(message, fields);
  }
}

/** One line per unsynced informer: `informer Pod/default (server https://…): <last error>`. */
export function describeUnsynced(u: UnsyncedInformer): string {
  const where = u.server === undefined ? '' : ` (server ${u.server})`;
  let why: string;
  if (u.lastError !== undefined) why = `last error: ${errorText(u.lastError)}`;
  else if (u.lastStatus === undefined) why = 'not started';
  else why = `no error reported, still ${u.lastStatus} after ${Math.round(u.waitingMs / 1000)}s`;
  return `informer ${u.informer}${where}: ${why}`;
}

/** One line per long wait: `informer Pod/default (server …): waiting 60s before relist (45s left), last error: …`. */
export function describeWaiting(w: WaitingInformer): string {
  const where = w.server === undefined ? '' : ` (server ${w.server})`;
  const why = w.lastError === undefined ? '' : `, last error: ${errorText(w.lastError)}`;
  const s = (ms: number): string => `${Math.ceil(ms / 1000)}s`;
  return `informer ${w.informer}${where}: waiting ${s(w.delayMs)} before ${w.next} (${s(w.remainingMs)} left), the cache may be stale${why}`;
}

/** One line per failing informer: `informer Pod/default (server …): list/watch failing for 130s (threshold 120s), 9 failures, last error: …`. */
export function describeFailing(f: FailingInformer): string {
  const where = f.server === undefined ? '' : ` (server ${f.server})`;
  const why = f.lastError === undefined ? '' : `, last error: ${errorText(f.lastError)}`;
  const s = (ms: number): string => `${Math.floor(ms / 1000)}s`;
  return `informer ${f.informer}${where}: list/watch failing for ${s(f.failingForMs)} (threshold ${s(f.thresholdMs)}), ${f.failures} failure${f.failures === 1 ? '' : 's'}${why}; the cache is stale`;
}

/** The error and up to three causes, on one line (an error's hint, on its message's later lines, joins with `; `). */
function errorText(err: unknown): string {
  if (!(err instanceof Error)) return oneLine(String(err));
  let text = err.message || err.name;
  let cause: unknown = err.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (!text.includes(cause.message)) text += `: ${cause.message}`;
    cause = cause.cause;
  }
  return oneLine(text);
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, '; ');
