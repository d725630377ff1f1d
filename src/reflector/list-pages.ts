import {
  type Observable,
  type SchedulerLike,
  type Subscription,
  Observable as RxObservable,
  asyncScheduler,
  catchError,
  defer,
  map,
  mergeMap,
  of,
  take,
  throwError,
  throwIfEmpty,
  timeout,
} from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { ApiError } from '../client/api-error.js';
import { parseListBodies } from '../client/list-body-decoder.js';
import { isPipelinedListWatcher, type ListPagePart, type ListPartsOptions } from '../client/list-parts.js';
import type { ListOptions, ListPage, ListWatcher } from '../api/list-watcher.js';

/** A complete list assembled from one or more pages. */
export interface AssembledList<T extends KubeObject = KubeObject> {
  readonly items: readonly T[];
  /** The resourceVersion of the last page (all pages of one list share a snapshot). */
  readonly resourceVersion: string;
  /** True when more than one page was requested (or the full-list retry ran). */
  readonly paginated: boolean;
  readonly pages: number;
}

/** Options of {@link listPages}. */
export interface ListPagesOptions<T extends KubeObject = KubeObject> {
  /** After a later page fails with reason `Expired`, retry once as one unpaged list. Default true. */
  readonly fullListIfExpired?: boolean;
  /**
   * A page request that delivers nothing this long fails with {@link ListTimeoutError} (with
   * pipelining: no head or page within this long of the request, nor the page within this long of
   * the head). Default: no limit.
   */
  readonly pageTimeoutMs?: number;
  /**
   * Pipelined paging, when the transport offers `listParts` (the HTTP transport does): the next
   * page is requested as soon as this page's continue token has been read — it comes before the
   * items — while this page is still arriving and being parsed, so the server prepares page N+1
   * while the client parses page N. At most this many page requests are open at once (the page
   * being received plus those requested ahead). Pages are still assembled in order into one list.
   * Default 2; 1 fetches pages strictly one after another (client-go's pager).
   */
  readonly pagesInFlight?: number;
  /**
   * With pipelined paging, when and how the pages are parsed ({@link ListParse}). Default `'auto'`.
   */
  readonly parse?: ListParse;
  /**
   * With `parse: 'auto'`: most bytes of raw page bodies held unparsed at once. Default
   * {@link DEFAULT_LIST_MEMORY_BUDGET}.
   */
  readonly memoryBudget?: number;
  /**
   * Most pages one list may take; the request for one more fails the list with
   * {@link ListPageLimitError}. Default {@link DEFAULT_MAX_PAGES}.
   */
  readonly maxPages?: number;
  /**
   * Applied to every item as soon as its page has been parsed (the reflector's
   * `listItemTransform`); an item it throws on is kept as it was. Default: none.
   */
  readonly mapItem?: (item: T) => T;
  /** Scheduler of the page timeout. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * When the pages of a pipelined list are parsed (the list is emitted when complete either way):
 *
 * - `'auto'`: each page's body is kept as it came, and the kept bodies are parsed together with
 *   one `JSON.parse`, as long as they hold at most `memoryBudget` bytes; a page that would take
 *   them past it has them parsed at once, and every later page of the list is parsed item by item
 *   as it arrives. A list within the budget costs what `'atEnd'` costs; a larger one holds about
 *   the budget in raw bytes at most.
 * - `'items'`: every item is parsed as soon as it has arrived (`'auto'` with a budget of 0): the
 *   least memory, and at 100k pods about the CPU of `'atEnd'` (the many small allocations cost the
 *   garbage collector little while the retained heap grows); at 10k up to a quarter more CPU
 *   (the byte scan that finds the items).
 * - `'atEnd'`: every body is kept and all are parsed together when the last is in (no bound: the
 *   raw bodies, about the JSON's size, are held until then, and joined once for the parse).
 * - `'perPage'`: each page is parsed with one `JSON.parse` as soon as it has arrived. At 100k pods
 *   the slowest: every large parse lands in the old generation and each of the many full garbage
 *   collections it brings marks the whole heap built so far.
 *
 * Figures: docs/initial-sync-memory.md.
 */
export type ListParse = 'auto' | 'items' | 'atEnd' | 'perPage';

/** Default `memoryBudget` of {@link listPages} (`listMemoryBudget` of the reflector): 64 MiB. */
export const DEFAULT_LIST_MEMORY_BUDGET = 64 * 2 ** 20;

/** A list page request got no answer within `pageTimeoutMs` (a frozen connection). */
export class ListTimeoutError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_LIST_TIMEOUT';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ListTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`list request got no answer within ${timeoutMs}ms`);
  }
}

/** Default `maxPages` of {@link listPages}: 10 000 pages (5 million objects at 500 a page). */
export const DEFAULT_MAX_PAGES = 10_000;

/**
 * The server answered a list page with a `continue` token it had already sent for an earlier page
 * of the same list: following it would request the same pages forever.
 */
export class ListContinueLoopError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_LIST_CONTINUE_LOOP';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ListContinueLoopError';
  constructor(
    /** The page (1 = the first) that repeated the token. */
    readonly page: number,
    /** The page that first carried it. */
    readonly firstPage: number,
  ) {
    super(`list page ${page} repeats the continue token of page ${firstPage}: the server's pages loop, the list is abandoned`);
  }
}

/** A list needed more than `maxPages` pages (the server never ends its pages, or the limit is too low). */
export class ListPageLimitError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_LIST_TOO_MANY_PAGES';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ListPageLimitError';
  constructor(readonly maxPages: number) {
    super(`list abandoned: more than ${maxPages} pages (raise the listWatch option maxListPages if the resource really is that large)`);
  }
}

/**
 * Follows the continue tokens of one list: the error that forbids requesting the page after page
 * `page` (1-based) whose token is `token`, or `undefined`.
 */
function continueGuard(maxPages: number): (page: number, token: string) => RxkubeError | undefined {
  const seen = new Map<string, number>();
  return (page, token) => {
    const earlier = seen.get(token);
    if (earlier !== undefined) return new ListContinueLoopError(page, earlier);
    if (page >= maxPages) return new ListPageLimitError(maxPages);
    seen.set(token, page);
    return undefined;
  };
}

/** Reason `Expired` only (the pager's check; a plain 410 Gone does not qualify). */
function isReasonExpired(err: unknown): boolean {
  return err instanceof ApiError && err.reason === 'Expired';
}

/** The options of the request after a page whose continue token is `token`. */
function nextOptions(options: ListOptions, token: string): ListOptions {
  const { resourceVersion: _rv, resourceVersionMatch: _match, ...rest } = options;
  return { ...rest, continue: token };
}

/** A failed page, with its position in the list (0 = the first). */
class PageFailure {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {}
}

/**
 * Lists every page and assembles them (client-go's pager, docs/semantics.md RE-5).
 *
 * The first request uses `options` as given. Each following request carries the `continue`
 * token and drops `resourceVersion` / `resourceVersionMatch`. When a page after the first fails
 * with reason `Expired` (the continue token outlived etcd's compaction) and `fullListIfExpired`
 * is on, the list is retried once without paging (`limit` and `continue` removed, the original
 * resourceVersion kept). Any other error, or `Expired` on the first page, is passed on.
 *
 * With a transport that offers `listParts`, requests are pipelined (see `pagesInFlight`).
 *
 * Cold: every subscription lists again; unsubscribing aborts the requests in flight.
 */
export function listPages<T extends KubeObject>(
  lw: ListWatcher<T>,
  options: ListOptions,
  {
    fullListIfExpired = true,
    pageTimeoutMs,
    pagesInFlight = 2,
    parse = 'auto',
    memoryBudget = DEFAULT_LIST_MEMORY_BUDGET,
    maxPages = DEFAULT_MAX_PAGES,
    mapItem,
    scheduler = asyncScheduler,
  }: ListPagesOptions<T> = {},
): Observable<AssembledList<T>> {
  const timed = <V>(source: Observable<V>, first: boolean): Observable<V> =>
    pageTimeoutMs === undefined
      ? source
      : source.pipe(
          timeout({
            ...(first ? { first: pageTimeoutMs } : { each: pageTimeoutMs }),
            scheduler,
            with: () => throwError(() => new ListTimeoutError(pageTimeoutMs)),
          }),
        );
  const mapped = mapPage(mapItem);
  const request = (opts: ListOptions): Observable<ListPage<T>> =>
    timed(
      lw.list(opts).pipe(
        take(1),
        throwIfEmpty(() => new Error('list request completed without a page')),
        map(mapped),
      ),
      true,
    );
  const pages$ =
    pagesInFlight > 1 && isPipelinedListWatcher(lw)
      ? pipelined(options, pagesInFlight, maxPages, startOfParse(parse, memoryBudget), mapped, (opts, how) => timed(lw.listParts(opts, how), false))
      : sequential(request, options, maxPages);
  return pages$.pipe(
    catchError((failure: unknown) => {
      const { index, error } = failure instanceof PageFailure ? failure : new PageFailure(0, failure);
      if (index === 0 || !fullListIfExpired || !isReasonExpired(error)) return throwError(() => error);
      const { limit: _limit, continue: _continue, ...full } = options;
      return request(full).pipe(map((p) => ({ items: [...p.items], resourceVersion: p.resourceVersion, paginated: true, pages: index + 1 })));
    }),
  );
}

/** Pages one after another: page N+1 is requested when page N has been parsed. */
function sequential<T extends KubeObject>(
  request: (opts: ListOptions) => Observable<ListPage<T>>,
  options: ListOptions,
  maxPages: number,
): Observable<AssembledList<T>> {
  return defer(() => {
    const items: T[] = [];
    const guard = continueGuard(maxPages);
    let pages = 0;
    const page = (opts: ListOptions): Observable<AssembledList<T>> =>
      request(opts).pipe(
        catchError((error: unknown) => throwError(() => new PageFailure(pages, error))),
        mergeMap((p) => {
          pages += 1;
          if (!p.continue && pages === 1) {
            return of({ items: [...p.items], resourceVersion: p.resourceVersion, paginated: false, pages });
          }
          items.push(...p.items);
          if (!p.continue) return of({ items, resourceVersion: p.resourceVersion, paginated: true, pages });
          const stop = guard(pages, p.continue);
          if (stop !== undefined) return throwError(() => new PageFailure(pages - 1, stop));
          return page(nextOptions(opts, p.continue));
        }),
      );
    return page(options);
  });
}

/** The page with `mapItem` applied to each item (an item it throws on kept as it was); `page` itself without `mapItem`. */
function mapPage<T extends KubeObject>(mapItem: ((item: T) => T) | undefined): (page: ListPage<T>) => ListPage<T> {
  if (mapItem === undefined) return (page) => page;
  const one = (item: T): T => {
    try {
      return mapItem(item);
    } catch {
      return item;
    }
  };
  return (page) => ({ ...page, items: page.items.map(one) });
}

/**
 * How a pipelined list has the pages still to come parsed (see {@link ListParse}):
 *
 * - `keepingBodies`: bodies are asked for unparsed and kept, `keptBytes` of them so far, while they
 *   hold at most `limitBytes` (`Infinity` for `'atEnd'`); they are parsed together at the end.
 * - `parsingItems`: each page's items are parsed as they arrive (`'items'`, or `'auto'` once past
 *   its budget; the bodies kept until then are parsed at that moment).
 * - `parsingPages`: each page is parsed whole as it arrives (`'perPage'`).
 */
type PipelinedParse =
  | { readonly mode: 'keepingBodies'; readonly limitBytes: number; readonly keptBytes: number }
  | { readonly mode: 'parsingItems' }
  | { readonly mode: 'parsingPages' };

/** How a pipelined list starts parsing its pages. */
function startOfParse(parse: ListParse, memoryBudget: number): PipelinedParse {
  switch (parse) {
    case 'atEnd':
      return { mode: 'keepingBodies', limitBytes: Infinity, keptBytes: 0 };
    case 'items':
      return { mode: 'parsingItems' };
    case 'perPage':
      return { mode: 'parsingPages' };
    default:
      return memoryBudget > 0 ? { mode: 'keepingBodies', limitBytes: memoryBudget, keptBytes: 0 } : { mode: 'parsingItems' };
  }
}

/** How a page request asks for its page while the list is parsed as `parsing` says. */
function requestParse(parsing: PipelinedParse): ListPartsOptions {
  switch (parsing.mode) {
    case 'keepingBodies':
      return { unparsed: true };
    case 'parsingItems':
      return { decode: 'items' };
    case 'parsingPages':
      return {};
  }
}

/** What one page request of a pipelined list delivered: a parsed page, or its body kept unparsed. */
type PageResult<T extends KubeObject> = ListPage<T> | { readonly body: Uint8Array; readonly path: string };

/** One page request of a pipelined list. */
interface Slot<T extends KubeObject> {
  readonly options: ListOptions;
  /** The continue token once known from the head or the page: `''` on the last page. */
  token: string | undefined;
  result: PageResult<T> | undefined;
  subscription: Subscription | undefined;
}

/**
 * Pipelined pages: page N+1 is requested as soon as page N's head (its continue token) has been
 * read, as long as fewer than `inFlight` requests are open; pages are assembled in order.
 *
 * `start` decides how pages are parsed (see {@link PipelinedParse}): while keeping bodies, they
 * are parsed together (once, at the end, when the list stays within the limit); a body that takes
 * them past the limit has every kept body parsed at once, and later requests ask for their items
 * parsed as they arrive.
 */
function pipelined<T extends KubeObject>(
  options: ListOptions,
  inFlight: number,
  maxPages: number,
  start: PipelinedParse,
  mapped: (page: ListPage<T>) => ListPage<T>,
  parts: (opts: ListOptions, how: ListPartsOptions) => Observable<ListPagePart<T>>,
): Observable<AssembledList<T>> {
  return new RxObservable<AssembledList<T>>((subscriber) => {
    const slots: Slot<T>[] = [];
    let consumed = 0;
    let done = false;
    /** How the pages still to come are parsed; leaves `keepingBodies` for good once past its limit. */
    let parsing = start;
    const guard = continueGuard(maxPages);

    const fail = (index: number, error: unknown): void => {
      if (done) return;
      done = true;
      for (const s of slots) s.subscription?.unsubscribe();
      subscriber.error(new PageFailure(index, error));
    };

    /** Requests the page after the last one when its token is known and there is room. */
    const requestMore = (): void => {
      for (;;) {
        if (done) return;
        const last = slots[slots.length - 1];
        if (last !== undefined && (last.token === undefined || last.token === '')) return;
        if (slots.length - consumed >= inFlight) return;
        if (last !== undefined) {
          const stop = guard(slots.length, last.token as string);
          if (stop !== undefined) return fail(slots.length - 1, stop);
        }
        open(last === undefined ? options : nextOptions(last.options, last.token as string));
      }
    };

    const open = (opts: ListOptions): void => {
      const index = slots.length;
      const slot: Slot<T> = { options: opts, token: undefined, result: undefined, subscription: undefined };
      slots.push(slot);
      let got = false;
      slot.subscription = parts(opts, requestParse(parsing)).subscribe({
        next: (part) => {
          if (done) return;
          if (part.type === 'head') {
            slot.token = part.continue ?? '';
            requestMore();
            return;
          }
          got = true;
          if (part.type === 'body') {
            if (slot.token === undefined) return fail(index, new Error('list body delivered unparsed without its head'));
            slot.result = { body: part.body, path: part.path };
            if (parsing.mode === 'keepingBodies' && parsing.keptBytes + part.body.length <= parsing.limitBytes) {
              parsing = { ...parsing, keptBytes: parsing.keptBytes + part.body.length };
            } else {
              // past the limit (or a body asked for before the limit was reached): parse what is kept now
              if (parsing.mode === 'keepingBodies') parsing = { mode: 'parsingItems' };
              if (!parseKept()) return;
            }
          } else {
            const token = part.page.continue ?? '';
            if (slot.token !== undefined && slot.token !== token) {
              // the head announced another token than the page carries: drop what was requested on it
              for (const later of slots.splice(index + 1)) later.subscription?.unsubscribe();
            }
            slot.token = token;
            slot.result = mapped(part.page);
          }
          assemble();
          requestMore();
        },
        error: (err: unknown) => fail(index, err),
        complete: () => {
          if (!got) fail(index, new Error('list request completed without a page'));
        },
      });
    };

    /**
     * Parses every kept body together (one `JSON.parse`), each page checked against the token its
     * head announced (its successor was requested with it). False when that failed the list.
     */
    const parseKept = (): boolean => {
      const kept = slots.filter((s): s is Slot<T> & { result: { body: Uint8Array; path: string } } => s.result !== undefined && 'body' in s.result);
      if (kept.length === 0) return true;
      const bodies = kept.map((s) => s.result.body);
      const path = (kept[0] as (typeof kept)[number]).result.path;
      for (const s of kept as Slot<T>[]) s.result = undefined; // the raw bodies go with the parse
      let pages: Array<ListPage<T>>;
      try {
        pages = parseListBodies<T>(bodies, path);
      } catch (err) {
        fail(0, err);
        return false;
      }
      for (let i = 0; i < kept.length; i++) {
        const slot = kept[i] as Slot<T>;
        const page = pages[i] as ListPage<T>;
        if ((page.continue ?? '') !== slot.token) {
          fail(0, new Error(`list page ${slots.indexOf(slot) + 1}: its continue token differs from the one its head announced`));
          return false;
        }
        slot.result = mapped(page);
        pages[i] = undefined as never; // the unmapped page can go before the next is mapped
      }
      return true;
    };

    /** Moves past every result that is complete and next in order; finishes after the last page. */
    const assemble = (): void => {
      for (;;) {
        const slot = slots[consumed];
        if (done || slot?.result === undefined) return;
        consumed += 1;
        if (slot.token === '') return finish();
      }
    };

    const finish = (): void => {
      if (!parseKept()) return;
      done = true;
      const pages = slots.map((s) => s.result as ListPage<T>);
      for (const s of slots) s.result = undefined;
      const last = pages[pages.length - 1] as ListPage<T>;
      const items = pages.length === 1 ? [...last.items] : pages.reduce<T[]>((all, p) => pushAll(all, p.items), []);
      subscriber.next({ items, resourceVersion: last.resourceVersion, paginated: pages.length > 1, pages: pages.length });
      subscriber.complete();
    };

    requestMore();
    return () => {
      done = true;
      for (const s of slots) s.subscription?.unsubscribe();
    };
  });
}

function pushAll<T>(into: T[], from: readonly T[]): T[] {
  for (const x of from) into.push(x);
  return into;
}
