import { type Observer, type SchedulerLike, asyncScheduler } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { BackoffOptions } from './backoff.js';
import { DEFAULT_LIST_MEMORY_BUDGET, type ListParse } from './list-pages.js';
import { ReflectorConfigError } from './reflector-errors.js';
import type { ReflectorStatus } from './reflector-status.js';

/** Options of {@link rxkube/reflector!listWatch}. Durations are milliseconds unless the name says seconds. */
export interface ListWatchOptions {
  /**
   * Page size of lists. When absent: 500 for lists at resourceVersion `""`/`"0"` (and for every
   * list once a `"0"` list came back paged), no paging for lists at a specific version (RE-4).
   */
  readonly pageSize?: number;
  /**
   * Pipelined paging: with a transport that reads a page's continue token before its items (the
   * HTTP transport does), the next page is requested as soon as that token is known, while this
   * page is still arriving and being parsed; at most this many page requests are open at once.
   * Pages are still assembled, in order, into one `replace`. Default 2; 1 requests pages strictly
   * one after another, as client-go's pager does.
   */
  readonly pagesInFlight?: number;
  /**
   * With pipelined paging, when list pages are parsed. `'auto'` (the default): the pages' bodies
   * are kept as they came and parsed together in one go when the last is in — the least CPU for a
   * list of up to some 20k pods — as long as they hold at most `listMemoryBudget` bytes; past it,
   * the kept bodies are parsed at once and the rest of the list item by item as it arrives, so a
   * large list never holds more raw bytes than the budget. `'items'`: every item parsed as it
   * arrives (the least memory; at 100k pods about the CPU of `'atEnd'`, at 10k up to a quarter
   * more). `'atEnd'`: every body kept until the last is in, without bound (the raw bodies, about
   * the JSON's size, are held until the parse). `'perPage'`: each page parsed whole as it
   * arrives (the most CPU on large lists). A single-page list is parsed item by item as it
   * arrives in every mode but `'perPage'`. Figures: docs/initial-sync-memory.md.
   */
  readonly listParse?: ListParse;
  /**
   * With `listParse: 'auto'`: most bytes of raw list bodies held unparsed to be parsed together.
   * Default {@link DEFAULT_LIST_MEMORY_BUDGET} (64 MiB: about 20k pods of 3.3 KB). 0 parses every
   * page item by item as it arrives; `Infinity` keeps every page until the last is in.
   */
  readonly listMemoryBudget?: number;
  /**
   * Applied to every list item as soon as its page has been parsed (before the list is complete),
   * so that what it drops can be freed page by page. Watch events and streaming-list events are
   * not passed through it. A shared informer sets it to its own transform (each object is still
   * transformed once); an error it throws leaves the item as it was. Default: none.
   */
  readonly listItemTransform?: (object: KubeObject) => KubeObject;
  /**
   * Start each cycle with a streaming list (`sendInitialEvents=true`, WL-1..WL-5): the server sends
   * the current objects as watch events and the same watch carries on, instead of a list followed
   * by a watch. Default true, as in client-go since 1.35. A server that refuses the request as
   * invalid (kube-apiserver before 1.27 forbids `resourceVersionMatch` on a watch; later versions
   * refuse `sendInitialEvents` when their WatchList feature is off) gets one failed request, then
   * list + watch for the life of the reflector. `false` always lists and watches. Used only with
   * a ListWatcher that declares `supportsStreamingList: true` (the HTTP one does).
   */
  readonly streamingList?: boolean;
  /** Lower bound of the random watch `timeoutSeconds`; honoured only above 300 (RE-7). Upper bound is 2×. */
  readonly minWatchTimeoutSeconds?: number;
  /**
   * A watch still open this long after its `timeoutSeconds` elapsed (and silent for at least as
   * long) is treated as dead: aborted, reported as `WatchStalledError`, and reopened from the last
   * resourceVersion after a backoff. Default 30 000.
   */
  readonly stallMarginMs?: number;
  /**
   * A watch silent this long is treated as dead, whatever its timeout: aborted, reported as
   * `WatchStalledError`, and reopened from the last resourceVersion (no relist) after the
   * connection backoff. The reflector asks for bookmarks, and kube-apiserver 1.21 and later sends
   * one to every watch about once a minute, so a healthy watch is never silent this long; on an
   * older server a quiet resource costs one extra watch request per period. Default 120 000;
   * 0 turns it off (then only `stallMarginMs` past the watch's timeout applies).
   */
  readonly idleTimeoutMs?: number;
  /**
   * A list page unanswered this long is aborted and counts as a failed list (backoff, relist).
   * kube-apiserver ends requests after 60 s (`--request-timeout`). Default 90 000; 0 disables.
   */
  readonly listTimeoutMs?: number;
  /**
   * Most pages one list may take. A list that would need more fails with `ListPageLimitError`
   * (and is retried after the general backoff), as does a list whose server repeats a `continue`
   * token (`ListContinueLoopError`): without these bounds a server that never ends its pages is
   * followed forever, its items piling up. Default {@link DEFAULT_MAX_LIST_PAGES} (10 000 pages: 5
   * million objects at the default page size).
   */
  readonly maxListPages?: number;
  /**
   * Longest wait a server's `Retry-After` can impose (after jitter). A larger value is cut to this;
   * the wait is still reported as `backingOff` with its `delayMs`. Default
   * {@link DEFAULT_MAX_RETRY_AFTER_MS} (60 s, kube-apiserver's own request timeout).
   */
  readonly maxRetryAfterMs?: number;
  /**
   * How long a watch must stay open before it counts as healthy (client-go's backoff manager
   * likewise resets only after a quiet period). Then every backoff starts over. A watch that
   * fails sooner, however many events it delivered, leaves the backoffs as they are, and the
   * relist after it waits at least the general backoff: under persistent watch failure the
   * reflector relists ever more slowly (800 ms ×2 up to 30 s, so at most about 2 relists a minute
   * once grown), never in a loop. A successful list, or any watch event, resets only the
   * connection backoff (the server answers). Default {@link DEFAULT_WATCH_HEALTHY_MS} (10 s).
   * Ignored with `sharedBackoff`.
   */
  readonly watchHealthyMs?: number;
  /**
   * The general backoff (BO-1, BO-2): before relists after errors that are neither connection
   * failures nor 429/5xx answers — an expired resourceVersion (the first relist after a healthy
   * watch goes at once), a very short watch, a 4xx answer, an undecodable body. Defaults: 800 ms,
   * ×2, capped at 30 s, jitter `[d, 2d)` (client-go's values). With `sharedBackoff` it is the one
   * backoff for every retry.
   */
  readonly backoff?: BackoffOptions;
  /**
   * Backoff when the server did not answer: connection refused, reset or unreachable, a list page
   * without answer, a stalled watch. Defaults: 100 ms, ×2, capped at 2 s, jitter `[d, 1.5d)`.
   * Ignored with `sharedBackoff`.
   */
  readonly connectionBackoff?: BackoffOptions;
  /**
   * Backoff when the server answered 429 or 5xx. An answer with Retry-After waits that long
   * instead (jitter `[d, 1.5d)`, at most `maxRetryAfterMs`), whatever the backoff has grown to. Defaults: 250 ms, ×2, capped
   * at 4 s, jitter `[d, 1.5d)`. Ignored with `sharedBackoff`.
   */
  readonly serverErrorBackoff?: BackoffOptions;
  /**
   * `true` restores client-go's backoff: one backoff (`backoff`) shared by every retry — refused
   * re-watches, stalls and relists alike — that starts over only after `backoff.resetMs` (2
   * minutes) without a delay request, so its delay depends on the fault history. Default false:
   * three backoffs by cause (`connectionBackoff`, `serverErrorBackoff`, `backoff`); a successful
   * list resets the connection backoff, a watch healthy for `watchHealthyMs` resets all three.
   */
  readonly sharedBackoff?: boolean;
  /** Re-watch immediately after 500 InternalError events for up to this long (RE-10). Default 0 (never). */
  readonly maxInternalErrorRetryMs?: number;
  /** Consecutive 401/403 answers tolerated before the stream errors with `ReflectorFatalError`. Default 2. */
  readonly authRetries?: number;
  /** Extra errors to treat as fatal (the stream errors with `ReflectorFatalError`). */
  readonly isFatal?: (error: unknown) => boolean;
  /**
   * Name of what runs this reflector (an informer sets its own name), named in
   * `ReflectorFatalError` with the transport's resource and server.
   */
  readonly name?: string;
  /** Scheduler of every timer and clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Random source in `[0, 1)` for jitter and watch timeouts. Default `Math.random`. */
  readonly random?: () => number;
  /** Receives status updates; completed when the stream ends or is unsubscribed. */
  readonly status?: Partial<Observer<ReflectorStatus>>;
}

/** Options with defaults applied. */
export interface ResolvedListWatchOptions {
  readonly pageSize: number | undefined;
  readonly pagesInFlight: number;
  readonly listParse: ListParse;
  readonly listMemoryBudget: number;
  readonly listItemTransform: ((object: KubeObject) => KubeObject) | undefined;
  readonly streamingList: boolean;
  readonly minWatchTimeoutSeconds: number;
  readonly stallMarginMs: number;
  readonly idleTimeoutMs: number | undefined;
  readonly listTimeoutMs: number | undefined;
  readonly maxListPages: number;
  readonly maxRetryAfterMs: number;
  readonly watchHealthyMs: number;
  readonly backoff: BackoffOptions;
  readonly connectionBackoff: BackoffOptions;
  readonly serverErrorBackoff: BackoffOptions;
  readonly sharedBackoff: boolean;
  readonly maxInternalErrorRetryMs: number;
  readonly authRetries: number;
  readonly isFatal: (error: unknown) => boolean;
  readonly name: string | undefined;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly status: Partial<Observer<ReflectorStatus>> | undefined;
}

const LIST_PARSE_MODES: readonly ListParse[] = ['auto', 'items', 'atEnd', 'perPage'];

/** Default `idleTimeoutMs`: two missed bookmarks of kube-apiserver's one-a-minute schedule. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** Default `maxListPages`. */
export const DEFAULT_MAX_LIST_PAGES = 10_000;

/** Default `maxRetryAfterMs`. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** Default `watchHealthyMs`. */
export const DEFAULT_WATCH_HEALTHY_MS = 10_000;

/** client-go's minimum watch timeout (RE-7). */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;

function check(ok: boolean, option: string, message: string): void {
  if (!ok) throw new ReflectorConfigError(`listWatch: ${message}`, { option });
}

function nonNegative(value: number | undefined, name: string): void {
  if (value !== undefined) check(Number.isFinite(value) && value >= 0, name, `${name} must be a finite number >= 0, got ${value}`);
}

function checkBackoff(b: BackoffOptions | undefined, name: string): BackoffOptions {
  const o = b ?? {};
  nonNegative(o.initialMs, `${name}.initialMs`);
  nonNegative(o.maxMs, `${name}.maxMs`);
  nonNegative(o.jitter, `${name}.jitter`);
  nonNegative(o.resetMs, `${name}.resetMs`);
  if (o.factor !== undefined) check(Number.isFinite(o.factor) && o.factor >= 1, `${name}.factor`, `${name}.factor must be >= 1, got ${o.factor}`);
  return o;
}

/** Validates `options` and applies defaults; throws `ReflectorConfigError` on bad input. */
export function resolveListWatchOptions(options: ListWatchOptions): ResolvedListWatchOptions {
  nonNegative(options.pageSize, 'pageSize');
  if (options.pageSize !== undefined) check(Number.isInteger(options.pageSize), 'pageSize', 'pageSize must be an integer');
  if (options.pagesInFlight !== undefined) {
    check(Number.isInteger(options.pagesInFlight) && options.pagesInFlight >= 1, 'pagesInFlight', `pagesInFlight must be an integer >= 1, got ${options.pagesInFlight}`);
  }
  if (options.listParse !== undefined) {
    check(LIST_PARSE_MODES.includes(options.listParse), 'listParse', `listParse must be one of ${LIST_PARSE_MODES.map((m) => `'${m}'`).join(', ')}, got ${String(options.listParse)}`);
  }
  if (options.listMemoryBudget !== undefined) {
    const b = options.listMemoryBudget;
    check(typeof b === 'number' && b >= 0 && !Number.isNaN(b), 'listMemoryBudget', `listMemoryBudget must be a number of bytes >= 0 (Infinity allowed), got ${b}`);
  }
  nonNegative(options.minWatchTimeoutSeconds, 'minWatchTimeoutSeconds');
  nonNegative(options.stallMarginMs, 'stallMarginMs');
  nonNegative(options.idleTimeoutMs, 'idleTimeoutMs');
  nonNegative(options.listTimeoutMs, 'listTimeoutMs');
  nonNegative(options.maxInternalErrorRetryMs, 'maxInternalErrorRetryMs');
  nonNegative(options.maxRetryAfterMs, 'maxRetryAfterMs');
  nonNegative(options.watchHealthyMs, 'watchHealthyMs');
  if (options.maxListPages !== undefined) {
    check(Number.isInteger(options.maxListPages) && options.maxListPages >= 1, 'maxListPages', `maxListPages must be an integer >= 1, got ${options.maxListPages}`);
  }
  nonNegative(options.authRetries, 'authRetries');
  const b = checkBackoff(options.backoff, 'backoff');
  const connection = checkBackoff(options.connectionBackoff, 'connectionBackoff');
  const serverError = checkBackoff(options.serverErrorBackoff, 'serverErrorBackoff');
  return {
    pageSize: options.pageSize === 0 ? undefined : options.pageSize,
    pagesInFlight: options.pagesInFlight ?? 2,
    listParse: options.listParse ?? 'auto',
    listMemoryBudget: options.listMemoryBudget ?? DEFAULT_LIST_MEMORY_BUDGET,
    listItemTransform: options.listItemTransform,
    streamingList: options.streamingList ?? true,
    minWatchTimeoutSeconds: Math.max(options.minWatchTimeoutSeconds ?? 0, MIN_WATCH_TIMEOUT_SECONDS),
    stallMarginMs: options.stallMarginMs ?? 30_000,
    idleTimeoutMs: options.idleTimeoutMs === 0 ? undefined : (options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
    listTimeoutMs: options.listTimeoutMs === 0 ? undefined : (options.listTimeoutMs ?? 90_000),
    maxListPages: options.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS,
    watchHealthyMs: options.watchHealthyMs ?? DEFAULT_WATCH_HEALTHY_MS,
    backoff: b,
    connectionBackoff: connection,
    serverErrorBackoff: serverError,
    sharedBackoff: options.sharedBackoff ?? false,
    maxInternalErrorRetryMs: options.maxInternalErrorRetryMs ?? 0,
    authRetries: options.authRetries ?? 2,
    isFatal: options.isFatal ?? (() => false),
    name: options.name,
    scheduler: options.scheduler ?? asyncScheduler,
    random: options.random ?? Math.random,
    status: options.status,
  };
}
