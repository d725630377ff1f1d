import type { Subscriber, Subscription } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { ApiError, isExpired, isTooLargeResourceVersion, isTooManyRequests, retryAfter } from '../client/api-error.js';
import { type Backoff, createBackoff, DEFAULT_CONNECTION_BACKOFF, DEFAULT_SERVER_ERROR_BACKOFF } from './backoff.js';
import { watchEventError } from '../client/watch-event-error.js';
import { isConnectionError, isConnectionRefused } from './connection-errors.js';
import { type AssembledList, ListTimeoutError, listPages } from './list-pages.js';
import type { ResolvedListWatchOptions } from './list-watch-options.js';
import type { ListOptions, ListWatcher, WatchEvent, WatchOptions } from '../api/list-watcher.js';
import { objectKey } from './object-key.js';
import { unexpectedObject } from './expected-objects.js';
import {
  ReflectorFatalError,
  type UnexpectedObjectError,
  UnusableWatchEventError,
  VeryShortWatchError,
  WatchStalledError,
} from './reflector-errors.js';
import type { ReflectorEvent } from './reflector-event.js';
import type { BackoffCause, ReflectorNextStep, ReflectorStatus } from './reflector-status.js';

const WATCH_EVENT_TYPES: ReadonlySet<unknown> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Annotation on the bookmark that ends a streaming list's initial events (WL-3). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
const VERY_SHORT_WATCH_MS = 1000;
const DEFAULT_PAGE_SIZE = 500;
const INTERNAL_ERROR_RESET_MS = 60_000;

type ErrorAction = Extract<ReflectorStatus, { type: 'error' }>['action'];

/** One open watch request (plain or streaming list). */
interface WatchSession<T extends KubeObject> {
  mode: 'watch' | 'streaming';
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly requestedAt: number;
  /** Start of the current phase (a streaming list turns into a plain watch at its bookmark). */
  startedAt: number;
  startRV: string;
  events: number;
  lastEventAt: number | undefined;
  seenNonAdded: boolean;
  closed: boolean;
  readonly initial: Map<string, T>;
  subscription: Subscription | undefined;
}

function isInternalError(err: unknown): boolean {
  return err instanceof ApiError && (err.statusCode === 500 || err.reason === 'InternalError');
}

function isAuthError(err: unknown): boolean {
  return err instanceof ApiError && (err.statusCode === 401 || err.statusCode === 403);
}

/**
 * Which backoff an error calls for: `connection` when the server did not answer (refused, reset,
 * unreachable, a list page or watch that went silent), `serverError` for 429 and 5xx answers,
 * `general` for the rest.
 */
export function backoffCause(err: unknown): BackoffCause {
  if (err instanceof ApiError) return err.statusCode === 429 || err.statusCode >= 500 || isTooManyRequests(err) ? 'serverError' : 'general';
  if (err instanceof WatchStalledError || err instanceof ListTimeoutError || isConnectionError(err)) return 'connection';
  return 'general';
}

/**
 * The reflector's state machine for one subscription of `listWatch()`. Internal: the public
 * surface is `listWatch()`. Every continuation runs on `options.scheduler`; at most one request
 * and one timer are live at any time, and `stop()` cancels both.
 */
export class ReflectorRun<T extends KubeObject> {
  private lastSyncRV: string | undefined;
  private rvUnavailable = false;
  private paginatedResult = false;
  private authFailures = 0;
  private internalFirst: number | undefined;
  private internalLast: number | undefined;
  private readonly backoffs: Readonly<Record<BackoffCause, Backoff>>;
  private request: Subscription | undefined;
  private timer: Subscription | undefined;
  private watchdog: Subscription | undefined;
  private stopped = false;

  constructor(
    private readonly lw: ListWatcher<T>,
    private readonly o: ResolvedListWatchOptions,
    private readonly out: Subscriber<ReflectorEvent<T>>,
  ) {
    const general = createBackoff(o.backoff, o.scheduler, o.random);
    this.backoffs = o.sharedBackoff
      ? { general, connection: general, serverError: general }
      : {
          general,
          connection: createBackoff(o.connectionBackoff, o.scheduler, o.random, DEFAULT_CONNECTION_BACKOFF),
          serverError: createBackoff(o.serverErrorBackoff, o.scheduler, o.random, DEFAULT_SERVER_ERROR_BACKOFF),
        };
  }

  start(): void {
    this.cycle();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.request?.unsubscribe();
    this.timer?.unsubscribe();
    this.watchdog?.unsubscribe();
    this.o.status?.complete?.();
  }

  // ---- plumbing -------------------------------------------------------------------------------

  private now(): number {
    return this.o.scheduler.now();
  }

  private status(s: ReflectorStatus): void {
    this.o.status?.next?.(s);
  }

  private report(error: unknown, action: ErrorAction): void {
    this.status({ type: 'error', error, action });
  }

  private emit(event: ReflectorEvent<T>): void {
    if (!this.stopped) this.out.next(event);
  }

  /** Runs `fn` after `delayMs` on the scheduler (0 = next turn, which also avoids re-entrancy). */
  private after(delayMs: number, fn: () => void): void {
    this.timer?.unsubscribe();
    this.timer = this.o.scheduler.schedule(() => {
      this.timer = undefined;
      if (!this.stopped) fn();
    }, delayMs);
  }

  /**
   * Waits, then runs `fn`. `retryAfterMs` > 0 (the server's Retry-After) is the wait, with the
   * usual jitter `[d, 1.5d)`, in place of the backoff's own delay: the server said when to come
   * back (kube-apiserver's max-in-flight and priority-and-fairness 429s carry Retry-After 1), and
   * a backoff grown through a burst of them would otherwise keep waiting its cap after the server
   * has room again. The attempt is counted either way. With `sharedBackoff` (client-go's
   * behaviour) the wait is the backoff's delay, at least Retry-After.
   */
  private backoffThen(next: ReflectorNextStep, fn: () => void, cause: BackoffCause, retryAfterMs = 0, floorMs = 0): void {
    const backoff = this.backoffs[cause];
    const step = backoff.next();
    const causeDelayMs =
      retryAfterMs <= 0
        ? step.delayMs
        : this.o.sharedBackoff
          ? Math.max(step.delayMs, Math.min(retryAfterMs, this.o.maxRetryAfterMs))
          : Math.min(retryAfterMs * (1 + 0.5 * this.o.random()), this.o.maxRetryAfterMs);
    const delayMs = Math.max(causeDelayMs, floorMs);
    const from = this.o.sharedBackoff || floorMs > causeDelayMs ? 'general' : cause;
    this.status({ type: 'backingOff', attempt: step.attempt, delayMs, next, backoff: from });
    this.after(delayMs, fn);
  }

  /**
   * The server answered a list (`'list'`): it is reachable, so the connection backoff starts
   * over. A watch open for `watchHealthyMs` (`'watch'`): the faults behind earlier delays are
   * over, so every backoff starts over. A list alone, or a watch that fails sooner (even after
   * events), resets nothing else: a server whose lists work but whose watches fail is relisted ever
   * more slowly. Not with `sharedBackoff` (client-go: only 2 minutes without a delay reset it).
   */
  private healthy(what: 'list' | 'watch'): void {
    if (this.o.sharedBackoff) return;
    this.backoffs.connection.reset();
    if (what === 'list') return;
    this.backoffs.serverError.reset();
    this.backoffs.general.reset();
  }

  /** Resets the backoffs once `session` has been open for `watchHealthyMs`. */
  private noteWatchHealth(session: WatchSession<T>): void {
    if (this.now() - session.requestedAt >= this.o.watchHealthyMs) this.healthy('watch');
  }

  /** Ends the stream with a typed error when `err` is fatal. Returns true if it was. */
  private failIfFatal(err: unknown): boolean {
    let fatal = false;
    if (this.o.isFatal(err)) fatal = true;
    else if (isAuthError(err)) {
      this.authFailures += 1;
      fatal = this.authFailures > this.o.authRetries;
    }
    if (!fatal) return false;
    const message = err instanceof Error ? err.message : String(err);
    this.stop();
    this.out.error(new ReflectorFatalError(`reflector stopped: ${message}`, { cause: err }));
    return true;
  }

  private timeoutSeconds(): number {
    const min = this.o.minWatchTimeoutSeconds;
    return Math.floor(min * (1 + this.o.random()));
  }

  // ---- list and watch cycle (RE-1, RE-2) --------------------------------------------------------

  private cycle = (): void => {
    this.status({ type: 'connecting' });
    if (this.o.streamingList && this.lw.supportsStreamingList !== false) this.streamList();
    else this.list();
  };

  /**
   * `listAndWatch` returned: report, back off (by the error's cause, at least the server's
   * Retry-After), start over with a relist (RE-1). `watchFailed`: the cycle's watch failed before
   * it proved healthy, so the wait is also at least the general backoff's next delay (relists are
   * expensive; persistent watch failure must not turn into a relist loop).
   */
  private endCycle(err: unknown, watchFailed = false): void {
    if (this.failIfFatal(err)) return;
    this.report(err, 'relist');
    const cause = backoffCause(err);
    const floorMs = watchFailed && !this.o.sharedBackoff && cause !== 'general' ? this.backoffs.general.next().delayMs : 0;
    this.backoffThen('relist', this.cycle, cause, (retryAfter(err) ?? 0) * 1000, floorMs);
  }

  // ---- list (RE-3..RE-6) -----------------------------------------------------------------------

  private list = (): void => {
    const rv = this.rvUnavailable ? '' : (this.lastSyncRV ?? '0');
    this.listAt(rv, true);
  };

  private listAt(rv: string, mayFallBack: boolean): void {
    const limit =
      this.o.pageSize ?? (this.paginatedResult || rv === '' || rv === '0' ? DEFAULT_PAGE_SIZE : 0);
    const options: ListOptions = {
      ...(rv !== '' ? { resourceVersion: rv } : {}),
      ...(limit > 0 ? { limit } : {}),
    };
    this.status({ type: 'listing', resourceVersion: rv, limit });
    this.request?.unsubscribe();
    this.request = listPages(this.lw, options, {
      ...(this.o.listTimeoutMs !== undefined ? { pageTimeoutMs: this.o.listTimeoutMs } : {}),
      pagesInFlight: this.o.pagesInFlight,
      maxPages: this.o.maxListPages,
      parse: this.o.listParse,
      scheduler: this.o.scheduler,
    }).subscribe({
      next: (result) => this.after(0, () => this.listed(result, rv)),
      error: (err: unknown) => this.after(0, () => this.listFailed(err, mayFallBack)),
    });
  }

  private listed(result: AssembledList<T>, requestRV: string): void {
    this.rvUnavailable = false;
    this.authFailures = 0;
    this.healthy('list');
    if (requestRV === '0' && result.paginated) this.paginatedResult = true;
    this.emit({ type: 'replace', items: this.expectedItems(result.items), resourceVersion: result.resourceVersion });
    this.lastSyncRV = result.resourceVersion;
    this.status({
      type: 'listed',
      resourceVersion: result.resourceVersion,
      itemCount: result.items.length,
      paginated: result.paginated,
    });
    this.watch();
  }

  /** `items` without those the transport did not promise (reported once per list, never cached). */
  private expectedItems(items: readonly T[]): readonly T[] {
    const expected = this.lw.expectedObjects;
    if (expected === undefined) return items;
    let kept: T[] | undefined;
    let first: UnexpectedObjectError | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as T;
      const problem = typeof item === 'object' && item !== null ? unexpectedObject(expected, item, 'list') : undefined;
      if (problem === undefined) {
        kept?.push(item);
        continue;
      }
      kept ??= items.slice(0, i);
      first ??= problem;
    }
    if (kept === undefined || first === undefined) return items;
    first.skipped = items.length - kept.length;
    this.report(first, 'skipEvent');
    return kept;
  }

  private listFailed(err: unknown, mayFallBack: boolean): void {
    if (mayFallBack && (isExpired(err) || isTooLargeResourceVersion(err))) {
      this.rvUnavailable = true;
      this.report(err, 'relist');
      this.listAt('', false);
      return;
    }
    this.endCycle(err);
  }

  // ---- watch (RE-7..RE-10) ---------------------------------------------------------------------

  private watch = (): void => {
    const rv = this.lastSyncRV ?? '';
    const timeoutSeconds = this.timeoutSeconds();
    this.status({ type: 'watching', resourceVersion: rv, timeoutSeconds });
    this.open('watch', rv, timeoutSeconds, {
      ...(rv !== '' ? { resourceVersion: rv } : {}),
      allowWatchBookmarks: true,
      timeoutSeconds,
    });
  };

  /** Streaming list (WL-2): a watch that first replays the current state, ended by a bookmark. */
  private streamList = (): void => {
    const rv = this.rvUnavailable ? '' : (this.lastSyncRV ?? '');
    const timeoutSeconds = this.timeoutSeconds();
    this.status({ type: 'streaming', resourceVersion: rv, timeoutSeconds });
    this.open('streaming', rv, timeoutSeconds, {
      ...(rv !== '' ? { resourceVersion: rv } : {}),
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      timeoutSeconds,
    });
  };

  private open(mode: WatchSession<T>['mode'], rv: string, timeoutSeconds: number, options: WatchOptions): void {
    const now = this.now();
    const session: WatchSession<T> = {
      mode,
      resourceVersion: rv,
      timeoutSeconds,
      requestedAt: now,
      startedAt: now,
      startRV: rv,
      events: 0,
      lastEventAt: undefined,
      seenNonAdded: false,
      closed: false,
      initial: new Map(),
      subscription: undefined,
    };
    this.request?.unsubscribe();
    this.armWatchdog(session);
    const subscription = this.lw.watch(options).subscribe({
      next: (event) => {
        if (!session.closed) this.onEvent(session, event);
      },
      error: (err: unknown) => {
        if (!session.closed) this.close(session, err);
      },
      complete: () => {
        if (!session.closed) this.close(session, undefined);
      },
    });
    session.subscription = subscription;
    if (session.closed) subscription.unsubscribe();
    else this.request = subscription;
  }

  /** Stall detection: see `stallMarginMs` and `idleTimeoutMs`. */
  private armWatchdog(session: WatchSession<T>): void {
    this.watchdog?.unsubscribe();
    const check = (): void => {
      if (session.closed || this.stopped) return;
      const now = this.now();
      const lastActivity = Math.max(session.requestedAt, session.lastEventAt ?? -Infinity);
      let deadline = Math.max(
        session.requestedAt + session.timeoutSeconds * 1000 + this.o.stallMarginMs,
        lastActivity + this.o.stallMarginMs,
      );
      if (this.o.idleTimeoutMs !== undefined) deadline = Math.min(deadline, lastActivity + this.o.idleTimeoutMs);
      if (now >= deadline) {
        this.stalled(session, now - lastActivity);
        return;
      }
      this.watchdog = this.o.scheduler.schedule(check, deadline - now);
    };
    check();
  }

  private stalled(session: WatchSession<T>, silentMs: number): void {
    this.shut(session);
    const err = new WatchStalledError(silentMs, this.lastSyncRV ?? session.resourceVersion);
    if (session.mode === 'streaming') {
      this.report(err, 'streamingList');
      this.backoffThen('streamingList', this.streamList, 'connection');
    } else {
      this.report(err, 'rewatch');
      this.backoffThen('rewatch', this.watch, 'connection');
    }
  }

  private shut(session: WatchSession<T>): void {
    this.noteWatchHealth(session);
    session.closed = true;
    session.subscription?.unsubscribe();
    this.watchdog?.unsubscribe();
    this.watchdog = undefined;
  }

  private onEvent(session: WatchSession<T>, event: WatchEvent<T>): void {
    session.events += 1;
    session.lastEventAt = this.now();
    // The transport is typed, but a watch line is untrusted JSON: reject anything that is not a
    // known event before reading its fields.
    if (typeof event !== 'object' || event === null || !WATCH_EVENT_TYPES.has((event as { type?: unknown }).type)) {
      this.report(new UnusableWatchEventError('watch event that is not an object with a known type', event), 'skipEvent');
      return;
    }
    if (event.type === 'ERROR') {
      this.close(session, watchEventError(event) ?? new ApiError(event.object));
      return;
    }
    const object = event.object as unknown;
    if (typeof object !== 'object' || object === null || typeof (object as KubeObject).metadata !== 'object') {
      this.report(new UnusableWatchEventError(`watch ${event.type} event without object metadata`, event), 'skipEvent');
      return;
    }
    if ((object as KubeObject).kind === 'Table') {
      this.report(new UnusableWatchEventError('watch event carries a meta.k8s.io Table', event), 'skipEvent');
      return;
    }
    const rvField: unknown = (object as KubeObject).metadata?.resourceVersion;
    if (rvField !== undefined && typeof rvField !== 'string') {
      // A bookmark or change carrying a non-string version would become the resume version.
      this.report(new UnusableWatchEventError(`watch ${event.type} event with a non-string resourceVersion`, event), 'skipEvent');
      return;
    }
    const expected = this.lw.expectedObjects;
    const unexpected = expected === undefined ? undefined : unexpectedObject(expected, event.object, `watch ${event.type} event`);
    if (unexpected !== undefined) {
      this.report(unexpected, 'skipEvent');
      return;
    }
    this.authFailures = 0;
    this.noteWatchHealth(session);
    const rv = event.object.metadata?.resourceVersion ?? '';
    if (session.mode === 'streaming') {
      this.onInitialEvent(session, event, rv);
      return;
    }
    switch (event.type) {
      case 'ADDED':
        this.emit({ type: 'added', object: event.object });
        break;
      case 'MODIFIED':
        this.emit({ type: 'modified', object: event.object });
        break;
      case 'DELETED':
        this.emit({ type: 'deleted', object: event.object });
        break;
      case 'BOOKMARK':
        this.emit({ type: 'bookmark', resourceVersion: rv });
        break;
    }
    // RE-9: a watch from "" or "0" replays synthetic ADDED events in no RV order; propagate RVs
    // only from the first non-ADDED event on.
    if (event.type !== 'ADDED') session.seenNonAdded = true;
    const fromInitial = session.startRV === '' || session.startRV === '0';
    if (rv !== '' && (!fromInitial || session.seenNonAdded)) this.lastSyncRV = rv;
  }

  /** WL-3: buffer the replayed state until the `initial-events-end` bookmark, then emit one `replace`. */
  private onInitialEvent(session: WatchSession<T>, event: Exclude<WatchEvent<T>, { type: 'ERROR' }>, rv: string): void {
    const key = objectKey(event.object);
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        session.initial.set(key, event.object);
        return;
      case 'DELETED':
        session.initial.delete(key);
        return;
      case 'BOOKMARK':
        if (event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') return;
        this.rvUnavailable = false;
        this.emit({ type: 'replace', items: [...session.initial.values()], resourceVersion: rv });
        this.lastSyncRV = rv;
        this.status({ type: 'listed', resourceVersion: rv, itemCount: session.initial.size, paginated: false });
        session.initial.clear();
        session.mode = 'watch';
        session.startedAt = this.now();
        session.startRV = rv;
        session.events = 0;
        this.status({ type: 'watching', resourceVersion: rv, timeoutSeconds: session.timeoutSeconds });
        return;
      default:
        return;
    }
  }

  private close(session: WatchSession<T>, err: unknown): void {
    this.shut(session);
    if (session.mode === 'streaming') this.streamEnded(session, err);
    else this.watchEnded(session, err);
  }

  private watchEnded(session: WatchSession<T>, err: unknown): void {
    const duration = this.now() - session.startedAt;
    const established = session.events > 0 || duration >= VERY_SHORT_WATCH_MS;
    if (err === undefined) {
      if (!established) {
        this.endCycle(new VeryShortWatchError(duration, session.startRV));
        return;
      }
      this.after(0, this.watch); // RE-10: closed normally, resume from the last RV
      return;
    }
    this.noteInternalError(err);
    if (isExpired(err)) {
      this.report(err, 'relist');
      if (!this.o.sharedBackoff && this.backoffs.general.attempts === 0) {
        // The resume version expired after a healthy watch (a compaction, a restarted server):
        // relist at once. Counted, so that a watch expiring again before any event backs off.
        this.backoffs.general.next();
        this.after(0, this.cycle);
      } else {
        this.backoffThen('relist', this.cycle, 'general');
      }
    } else if (isTooManyRequests(err)) {
      this.report(err, 'rewatch');
      this.backoffThen('rewatch', this.watch, 'serverError', (retryAfter(err) ?? 0) * 1000);
    } else if (session.events === 0 && (isConnectionRefused(err) || (!(err instanceof ApiError) && isConnectionError(err)))) {
      // RE-8, widened: no answer at all (refused, reset, unreachable) says nothing against the
      // resume version, so watch again from it rather than relist.
      this.report(err, 'rewatch');
      this.backoffThen('rewatch', this.watch, 'connection');
    } else if (isInternalError(err) && this.shouldRetryInternalError()) {
      this.report(err, 'rewatch');
      this.after(0, this.watch);
    } else if (established && !(err instanceof ApiError) && isConnectionError(err)) {
      // A dropped connection after the watch was established ends the stream like a close.
      this.report(err, 'rewatch');
      this.after(0, this.watch);
    } else {
      this.endCycle(err, true);
    }
  }

  private streamEnded(session: WatchSession<T>, err: unknown): void {
    const duration = this.now() - session.startedAt;
    if (err === undefined) {
      if (session.events === 0 && duration < VERY_SHORT_WATCH_MS) {
        this.report(new VeryShortWatchError(duration, session.startRV), 'fallbackToList');
        this.list();
        return;
      }
      this.after(0, this.streamList); // WL-4: closed before the bookmark → new streaming list
      return;
    }
    if (isTooManyRequests(err) || (session.events === 0 && isConnectionRefused(err))) {
      this.report(err, 'streamingList');
      this.backoffThen('streamingList', this.streamList, backoffCause(err), (retryAfter(err) ?? 0) * 1000);
    } else if (isExpired(err) || isTooLargeResourceVersion(err)) {
      this.rvUnavailable = true;
      this.report(err, 'streamingList');
      this.after(0, this.streamList);
    } else {
      this.report(err, 'fallbackToList');
      this.list();
    }
  }

  // ---- internal-error retry window (RE-10) -----------------------------------------------------

  private noteInternalError(err: unknown): void {
    if (!isInternalError(err)) return;
    const now = this.now();
    if (this.internalLast === undefined || now - this.internalLast >= INTERNAL_ERROR_RESET_MS) {
      this.internalFirst = now;
    }
    this.internalLast = now;
  }

  private shouldRetryInternalError(): boolean {
    if (this.o.maxInternalErrorRetryMs <= 0 || this.internalFirst === undefined) return false;
    return this.now() - this.internalFirst <= this.o.maxInternalErrorRetryMs;
  }
}
