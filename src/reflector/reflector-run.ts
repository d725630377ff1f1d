import type { Subscriber, Subscription } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { ApiError, isExpired, isInvalidRequest, isTooLargeResourceVersion, isTooManyRequests, retryAfter } from '../client/api-error.js';
import { type Backoff, createBackoff, DEFAULT_CONNECTION_BACKOFF, DEFAULT_SERVER_ERROR_BACKOFF } from './backoff.js';
import { watchEventError } from '../client/watch-event-error.js';
import { isConnectionError, isConnectionRefused } from './connection-errors.js';
import { type AssembledList, ListTimeoutError, listPages } from './list-pages.js';
import type { ResolvedListWatchOptions } from './list-watch-options.js';
import type { ListOptions, ListWatcher, WatchEvent, WatchOptions } from '../api/list-watcher.js';
import { objectKey } from './object-key.js';
import { unexpectedObject } from './expected-objects.js';
import { reflectorFatalError } from './reflector-fatal.js';
import {
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

/** One open watch request (plain or streaming list; which one is the phase holding it). */
interface WatchSession<T extends KubeObject> {
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
 * Where a reflector is (`ReflectorRun`):
 *
 * ```
 * idle ──start──▶ relist: listing, or streaming (streamingList)
 * listing ──listed──▶ watching          listing ──expired version──▶ listing (from "")
 * streaming ──initial-events-end bookmark──▶ watching (the same watch goes on)
 * streaming ──failed──▶ listing (fallback) | resuming | backingOff
 * watching ──closed or failed──▶ resuming | backingOff
 * listing ──failed──▶ backingOff
 * resuming | backingOff ──timer──▶ relist | rewatch: watching | streamingList: streaming
 * any ──stop (unsubscribed, or a fatal error)──▶ stopped
 * ```
 *
 * - `idle`: constructed, not started.
 * - `listing`: a (paged) list request is out, or its answer waits for the next turn to be handled.
 * - `streaming`: a streaming list (WL-2) is open and has not reached its initial-events-end bookmark.
 * - `watching`: a watch is open (or a streaming list past its bookmark).
 * - `backingOff`: waiting `delayMs` (a backoff delay, or the server's Retry-After) before `next`.
 * - `resuming`: waiting for the next scheduler turn before `next` (no delay: a watch closed normally,
 *   a resume version expired after a healthy watch…).
 * - `stopped`: nothing runs and nothing is emitted any more.
 */
export type ReflectorPhase = ReflectorState<KubeObject>['kind'];

/** A phase with what belongs to it: the list's parameters, the open watch, or what comes after a wait. */
type ReflectorState<T extends KubeObject> =
  | { readonly kind: 'idle' }
  | { readonly kind: 'listing'; readonly resourceVersion: string; readonly limit: number; readonly mayFallBack: boolean }
  | { readonly kind: 'streaming' | 'watching'; readonly session: WatchSession<T>; readonly options: WatchOptions }
  | { readonly kind: 'backingOff'; readonly next: ReflectorNextStep; readonly delayMs: number }
  | { readonly kind: 'resuming'; readonly next: ReflectorNextStep }
  | { readonly kind: 'stopped' };

/**
 * The reflector's state machine for one subscription of `listWatch()`. Internal: the public
 * surface is `listWatch()`. Its phase changes only in `to` (see {@link ReflectorPhase}), which
 * also cancels what the phase left behind; so at most one request and one timer are live at any
 * time. Every continuation runs on `options.scheduler`.
 */
export class ReflectorRun<T extends KubeObject> {
  private lastSyncRV: string | undefined;
  private rvUnavailable = false;
  /** The server refused a streaming list as an invalid request (WL-5): every later cycle lists. */
  private streamingRefused = false;
  private paginatedResult = false;
  private authFailures = 0;
  private internalFirst: number | undefined;
  private internalLast: number | undefined;
  private readonly backoffs: Readonly<Record<BackoffCause, Backoff>>;
  private state: ReflectorState<T> = { kind: 'idle' };
  /** The list request of `listing` (a watch's subscription is its session's). */
  private request: Subscription | undefined;
  /** The wait of `backingOff` and `resuming`, or the hand-over of a list's answer in `listing`. */
  private timer: Subscription | undefined;
  /** The stall check of the open watch. */
  private watchdog: Subscription | undefined;

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

  /** Where the reflector is. */
  get phase(): ReflectorPhase {
    return this.state.kind;
  }

  /** idle → the first list (or streaming list). */
  start(): void {
    if (this.state.kind === 'idle') this.take('relist');
  }

  /** any → stopped: cancels the request and the timers; the status observer completes. */
  stop(): void {
    this.to({ kind: 'stopped' });
  }

  // ---- the transition: the only code that changes the phase -----------------------------------

  /**
   * Leaves the current phase, cancelling what it left running (a list request, a wait, a watch —
   * unless `next` goes on with the same watch), then enters `next` and starts what it does: a list
   * request, a watch request, or a timer. Nothing leaves `stopped`.
   */
  private to(next: ReflectorState<T>): void {
    const left = this.state;
    if (left.kind === 'stopped') return;
    this.state = next;
    this.timer?.unsubscribe();
    this.timer = undefined;
    if (left.kind === 'listing') {
      this.request?.unsubscribe();
      this.request = undefined;
    }
    const goesOn = 'session' in next && 'session' in left && next.session === left.session;
    if ((left.kind === 'watching' || left.kind === 'streaming') && !goesOn) this.shut(left.session);
    switch (next.kind) {
      case 'listing':
        this.request = this.requestList(next);
        return;
      case 'watching':
      case 'streaming':
        if (!goesOn) this.open(next.session, next.options);
        return;
      case 'backingOff':
      case 'resuming': {
        const step = next.next;
        this.timer = this.o.scheduler.schedule(() => {
          this.timer = undefined;
          if (this.state === next) this.take(step);
        }, next.kind === 'backingOff' ? next.delayMs : 0);
        return;
      }
      case 'stopped':
        this.o.status?.complete?.();
        return;
      case 'idle':
        return;
    }
  }

  /** What a wait leads to: a new cycle (a relist), a new watch, or a new streaming list. */
  private take(step: ReflectorNextStep): void {
    if (step === 'relist') this.cycle();
    else if (step === 'rewatch') this.watch();
    else this.streamList();
  }

  // ---- plumbing -------------------------------------------------------------------------------

  private now(): number {
    return this.o.scheduler.now();
  }

  private status(s: ReflectorStatus): void {
    if (this.state.kind !== 'stopped') this.o.status?.next?.(s);
  }

  private report(error: unknown, action: ErrorAction): void {
    this.status({ type: 'error', error, action });
  }

  private emit(event: ReflectorEvent<T>): void {
    if (this.state.kind !== 'stopped') this.out.next(event);
  }

  /** `resuming`: runs `next` on the next scheduler turn (no delay; this also avoids re-entrancy). */
  private resume(next: ReflectorNextStep): void {
    this.to({ kind: 'resuming', next });
  }

  /**
   * `backingOff`: waits, then takes `next`. `retryAfterMs` > 0 (the server's Retry-After) is the wait, with the
   * usual jitter `[d, 1.5d)`, in place of the backoff's own delay: the server said when to come
   * back (kube-apiserver's max-in-flight and priority-and-fairness 429s carry Retry-After 1), and
   * a backoff grown through a burst of them would otherwise keep waiting its cap after the server
   * has room again. The attempt is counted either way. With `sharedBackoff` (client-go's
   * behaviour) the wait is the backoff's delay, at least Retry-After. Retry-After counts for at
   * most `maxRetryAfterMs`. `floorMs`: the wait is at least this long.
   */
  private backOff(next: ReflectorNextStep, cause: BackoffCause, retryAfterMs = 0, floorMs = 0): void {
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
    this.to({ kind: 'backingOff', next, delayMs });
  }

  /**
   * The server answered a list or delivered a watch event (`'connection'`): it is reachable, so
   * the connection backoff starts over. A watch open for `watchHealthyMs` (`'all'`): the faults
   * behind earlier delays are over, so every backoff starts over. A list alone, or a watch that
   * fails sooner (even after events), resets nothing else: a server whose lists work but whose
   * watches fail is relisted ever more slowly. Not with `sharedBackoff` (client-go: only 2 minutes
   * without a delay reset it).
   */
  private healthy(what: 'connection' | 'all'): void {
    if (this.o.sharedBackoff) return;
    this.backoffs.connection.reset();
    if (what === 'connection') return;
    this.backoffs.serverError.reset();
    this.backoffs.general.reset();
  }

  /** Resets the backoffs once `session` has been open for `watchHealthyMs`. */
  private noteWatchHealth(session: WatchSession<T>, now = this.now()): void {
    if (now - session.requestedAt >= this.o.watchHealthyMs) this.healthy('all');
    else if (session.events > 0) this.healthy('connection'); // the server answers: the connection backoff only
  }

  /** Ends the stream with a typed error when `err` is fatal. Returns true if it was. */
  private failIfFatal(err: unknown): boolean {
    let fatal = false;
    let authFailures = 0;
    if (this.o.isFatal(err)) fatal = true;
    else if (isAuthError(err)) {
      this.authFailures += 1;
      fatal = this.authFailures > this.o.authRetries;
      authFailures = this.authFailures;
    }
    if (!fatal) return false;
    this.stop();
    this.out.error(reflectorFatalError(err, { informer: this.o.name, target: this.lw.target, authFailures }));
    return true;
  }

  private timeoutSeconds(): number {
    const min = this.o.minWatchTimeoutSeconds;
    return Math.floor(min * (1 + this.o.random()));
  }

  // ---- list and watch cycle (RE-1, RE-2) --------------------------------------------------------

  private cycle(): void {
    this.status({ type: 'connecting' });
    if (this.o.streamingList && this.lw.supportsStreamingList === true && !this.streamingRefused) this.streamList();
    else this.list();
  }

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
    this.backOff('relist', cause, (retryAfter(err) ?? 0) * 1000, floorMs);
  }

  // ---- list (RE-3..RE-6) -----------------------------------------------------------------------

  private list(): void {
    const rv = this.rvUnavailable ? '' : (this.lastSyncRV ?? '0');
    this.listAt(rv, true);
  }

  private listAt(rv: string, mayFallBack: boolean): void {
    const limit =
      this.o.pageSize ?? (this.paginatedResult || rv === '' || rv === '0' ? DEFAULT_PAGE_SIZE : 0);
    this.status({ type: 'listing', resourceVersion: rv, limit });
    this.to({ kind: 'listing', resourceVersion: rv, limit, mayFallBack });
  }

  /** The request of `listing`; its answer is handled on the next turn, if still listing then. */
  private requestList(listing: Extract<ReflectorState<T>, { kind: 'listing' }>): Subscription {
    const { resourceVersion: rv, limit, mayFallBack } = listing;
    const options: ListOptions = {
      ...(rv !== '' ? { resourceVersion: rv } : {}),
      ...(limit > 0 ? { limit } : {}),
    };
    const handOver = (fn: () => void): void => {
      this.timer?.unsubscribe();
      this.timer = this.o.scheduler.schedule(() => {
        this.timer = undefined;
        if (this.state === listing) fn();
      }, 0);
    };
    return listPages(this.lw, options, {
      ...(this.o.listTimeoutMs !== undefined ? { pageTimeoutMs: this.o.listTimeoutMs } : {}),
      pagesInFlight: this.o.pagesInFlight,
      maxPages: this.o.maxListPages,
      parse: this.o.listParse,
      memoryBudget: this.o.listMemoryBudget,
      ...(this.o.listItemTransform !== undefined ? { mapItem: this.o.listItemTransform as unknown as (object: T) => T } : {}),
      scheduler: this.o.scheduler,
    }).subscribe({
      next: (result) => handOver(() => this.listed(result, rv)),
      error: (err: unknown) => handOver(() => this.listFailed(err, mayFallBack)),
    });
  }

  private listed(result: AssembledList<T>, requestRV: string): void {
    this.rvUnavailable = false;
    this.authFailures = 0;
    this.healthy('connection');
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

  private watch(): void {
    const rv = this.lastSyncRV ?? '';
    const timeoutSeconds = this.timeoutSeconds();
    this.status({ type: 'watching', resourceVersion: rv, timeoutSeconds });
    this.to({
      kind: 'watching',
      session: this.newSession(rv, timeoutSeconds),
      options: { ...(rv !== '' ? { resourceVersion: rv } : {}), allowWatchBookmarks: true, timeoutSeconds },
    });
  }

  /** Streaming list (WL-2): a watch that first replays the current state, ended by a bookmark. */
  private streamList(): void {
    const rv = this.rvUnavailable ? '' : (this.lastSyncRV ?? '');
    const timeoutSeconds = this.timeoutSeconds();
    this.status({ type: 'streaming', resourceVersion: rv, timeoutSeconds });
    this.to({
      kind: 'streaming',
      session: this.newSession(rv, timeoutSeconds),
      options: {
        ...(rv !== '' ? { resourceVersion: rv } : {}),
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds,
      },
    });
  }

  /** Whether the open watch is a streaming list still before its bookmark. */
  private streaming(): boolean {
    return this.state.kind === 'streaming';
  }

  private newSession(rv: string, timeoutSeconds: number): WatchSession<T> {
    const now = this.now();
    return {
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
  }

  /** The request of `watching` and `streaming`, and its stall check. */
  private open(session: WatchSession<T>, options: WatchOptions): void {
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
  }

  /** Stall detection: see `stallMarginMs` and `idleTimeoutMs`. */
  private armWatchdog(session: WatchSession<T>): void {
    this.watchdog?.unsubscribe();
    const check = (): void => {
      if (session.closed || this.state.kind === 'stopped') return;
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
    const streaming = this.streaming();
    this.shut(session);
    const err = new WatchStalledError(silentMs, this.lastSyncRV ?? session.resourceVersion);
    if (streaming) {
      this.report(err, 'streamingList');
      this.backOff('streamingList', 'connection');
    } else {
      this.report(err, 'rewatch');
      this.backOff('rewatch', 'connection');
    }
  }

  /** Closes `session` (once): health noted, request and stall check cancelled. */
  private shut(session: WatchSession<T>): void {
    if (session.closed) return;
    this.noteWatchHealth(session);
    session.closed = true;
    session.subscription?.unsubscribe();
    this.watchdog?.unsubscribe();
    this.watchdog = undefined;
  }

  private onEvent(session: WatchSession<T>, event: WatchEvent<T>): void {
    session.events += 1;
    const now = this.now();
    session.lastEventAt = now;
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
    this.noteWatchHealth(session, now);
    const rv = event.object.metadata?.resourceVersion ?? '';
    if (this.streaming()) {
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
        if (this.state.kind === 'streaming') this.to({ kind: 'watching', session, options: this.state.options });
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
    const streaming = this.streaming();
    this.shut(session);
    if (streaming) this.streamEnded(session, err);
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
      this.resume('rewatch'); // RE-10: closed normally, resume from the last RV
      return;
    }
    this.noteInternalError(err);
    if (isExpired(err)) {
      this.report(err, 'relist');
      if (!this.o.sharedBackoff && this.backoffs.general.attempts === 0) {
        // The resume version expired after a healthy watch (a compaction, a restarted server):
        // relist at once. Counted, so that a watch expiring again before any event backs off.
        this.backoffs.general.next();
        this.resume('relist');
      } else {
        this.backOff('relist', 'general');
      }
    } else if (isTooManyRequests(err)) {
      this.report(err, 'rewatch');
      this.backOff('rewatch', 'serverError', (retryAfter(err) ?? 0) * 1000);
    } else if (session.events === 0 && (isConnectionRefused(err) || (!(err instanceof ApiError) && isConnectionError(err)))) {
      // RE-8, widened: no answer at all (refused, reset, unreachable) says nothing against the
      // resume version, so watch again from it rather than relist.
      this.report(err, 'rewatch');
      this.backOff('rewatch', 'connection');
    } else if (isInternalError(err) && this.shouldRetryInternalError()) {
      this.report(err, 'rewatch');
      this.resume('rewatch');
    } else if (established && !(err instanceof ApiError) && isConnectionError(err)) {
      // A dropped connection after the watch was established ends the stream like a close.
      this.report(err, 'rewatch');
      this.resume('rewatch');
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
      this.resume('streamingList'); // WL-4: closed before the bookmark → new streaming list
      return;
    }
    if (isTooManyRequests(err) || (session.events === 0 && isConnectionRefused(err))) {
      this.report(err, 'streamingList');
      this.backOff('streamingList', backoffCause(err), (retryAfter(err) ?? 0) * 1000);
    } else if (isExpired(err) || isTooLargeResourceVersion(err)) {
      this.rvUnavailable = true;
      this.report(err, 'streamingList');
      this.resume('streamingList');
    } else {
      // WL-5: a server that validates the request and refuses it (before 1.27, or with the
      // WatchList feature off) will refuse it again; stop asking for the life of this reflector.
      // Not reported as a failure: it is how such a server says "no", and the list follows at once
      // (a request that is invalid for another reason fails the list too, and that is reported).
      if (isInvalidRequest(err)) this.streamingRefused = true;
      else this.report(err, 'fallbackToList');
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
