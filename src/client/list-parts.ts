import type { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ListOptions, ListPage, ListWatcher } from '../api/list-watcher.js';
import type { ListHead } from './list-body-decoder.js';

/**
 * One list response as it arrives: at most one `head` (the list's metadata, read before its
 * items), then exactly one `page`.
 */
export type ListPagePart<T extends KubeObject = KubeObject> =
  | ({ readonly type: 'head' } & ListHead)
  | { readonly type: 'page'; readonly page: ListPage<T> };

/**
 * A {@link ListWatcher} that can announce a list page's metadata before its items have arrived,
 * so a pager can request the next page at once (pipelined paging). `listParts` is `list` with the
 * head in front: cold, aborts on unsubscribe, errors like `list`.
 */
export interface PipelinedListWatcher<T extends KubeObject = KubeObject> extends ListWatcher<T> {
  listParts(options: ListOptions): Observable<ListPagePart<T>>;
}

/** True when `lw` offers `listParts`. */
export function isPipelinedListWatcher<T extends KubeObject>(lw: ListWatcher<T>): lw is PipelinedListWatcher<T> {
  return typeof (lw as Partial<PipelinedListWatcher<T>>).listParts === 'function';
}
