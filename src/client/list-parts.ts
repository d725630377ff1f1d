import type { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ListOptions, ListPage, ListWatcher } from '../api/list-watcher.js';
import type { ListHead } from './list-body-decoder.js';

/**
 * One list response as it arrives: at most one `head` (the list's metadata, read before its
 * items), then exactly one `page`, or — when the request asked for `unparsed` and a head came —
 * the `body` as it came, for the caller to parse with `parseListBodies`.
 */
export type ListPagePart<T extends KubeObject = KubeObject> =
  | ({ readonly type: 'head' } & ListHead)
  | { readonly type: 'page'; readonly page: ListPage<T> }
  | { readonly type: 'body'; readonly body: Uint8Array; readonly path: string };

/** Options of `listParts`. */
export interface ListPartsOptions {
  /**
   * Deliver the body unparsed (a `body` part) when its head came first and announced a next page;
   * a page without a continue token (a single-page list, or the last page) is parsed item by item
   * as it arrives instead, so a large unpaged list is never held whole as bytes. Default false.
   */
  readonly unparsed?: boolean;
  /**
   * `'items'`: parse every item as soon as its last byte has arrived, whatever the transport's
   * own decoding (`unparsed` is then ignored): the page's raw bytes are never held whole, and the
   * small per-item allocations cost V8's garbage collector far less than one large parse per page
   * while the retained heap grows (see docs/initial-sync-memory.md). Default: the transport's.
   */
  readonly decode?: 'items';
}

/**
 * A {@link ListWatcher} that can announce a list page's metadata before its items have arrived,
 * so a pager can request the next page at once (pipelined paging). `listParts` is `list` with the
 * head in front: cold, aborts on unsubscribe, errors like `list`.
 */
export interface PipelinedListWatcher<T extends KubeObject = KubeObject> extends ListWatcher<T> {
  listParts(options: ListOptions, parts?: ListPartsOptions): Observable<ListPagePart<T>>;
}

/** True when `lw` offers `listParts`. */
export function isPipelinedListWatcher<T extends KubeObject>(lw: ListWatcher<T>): lw is PipelinedListWatcher<T> {
  return typeof (lw as Partial<PipelinedListWatcher<T>>).listParts === 'function';
}
