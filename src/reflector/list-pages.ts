import { type Observable, type SchedulerLike, asyncScheduler, catchError, defer, mergeMap, of, take, throwError, throwIfEmpty, timeout } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { ApiError } from '../client/api-error.js';
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
export interface ListPagesOptions {
  /** After a later page fails with reason `Expired`, retry once as one unpaged list. Default true. */
  readonly fullListIfExpired?: boolean;
  /** A page request unanswered this long fails with {@link ListTimeoutError}. Default: no limit. */
  readonly pageTimeoutMs?: number;
  /** Scheduler of the page timeout. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** A list page request got no answer within `pageTimeoutMs` (a frozen connection). */
export class ListTimeoutError extends RxkubeError {
  static override readonly code: string = 'REFLECTOR_LIST_TIMEOUT';
  static override readonly layer: ErrorLayer = 'reflector';
  override readonly name = 'ListTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`list request got no answer within ${timeoutMs}ms`);
  }
}

/** Reason `Expired` only (the pager's check; a plain 410 Gone does not qualify). */
function isReasonExpired(err: unknown): boolean {
  return err instanceof ApiError && err.reason === 'Expired';
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
 * Cold: every subscription lists again; unsubscribing aborts the page in flight.
 */
export function listPages<T extends KubeObject>(
  lw: ListWatcher<T>,
  options: ListOptions,
  { fullListIfExpired = true, pageTimeoutMs, scheduler = asyncScheduler }: ListPagesOptions = {},
): Observable<AssembledList<T>> {
  const request = (opts: ListOptions): Observable<ListPage<T>> => {
    const page$ = lw.list(opts).pipe(
      take(1),
      throwIfEmpty(() => new Error('list request completed without a page')),
    );
    return pageTimeoutMs === undefined
      ? page$
      : page$.pipe(timeout({ first: pageTimeoutMs, scheduler, with: () => throwError(() => new ListTimeoutError(pageTimeoutMs)) }));
  };
  return defer(() => {
    const items: T[] = [];
    let pages = 0;
    const page = (opts: ListOptions): Observable<AssembledList<T>> =>
      request(opts).pipe(
        mergeMap((p) => {
          pages += 1;
          if (!p.continue && pages === 1) {
            return of({ items: [...p.items], resourceVersion: p.resourceVersion, paginated: false, pages });
          }
          items.push(...p.items);
          if (!p.continue) return of({ items, resourceVersion: p.resourceVersion, paginated: true, pages });
          const { resourceVersion: _rv, resourceVersionMatch: _match, ...rest } = opts;
          return page({ ...rest, continue: p.continue });
        }),
      );
    return page(options).pipe(
      catchError((err: unknown) => {
        if (pages === 0 || !fullListIfExpired || !isReasonExpired(err)) return throwError(() => err);
        const { limit: _limit, continue: _continue, ...full } = options;
        return request(full).pipe(
          mergeMap((p) => of({ items: [...p.items], resourceVersion: p.resourceVersion, paginated: true, pages: pages + 1 })),
        );
      }),
    );
  });
}
