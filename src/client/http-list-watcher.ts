import { defer, from, Observable, switchMap } from 'rxjs';
import type { KubeList, KubeObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import type { ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from '../api/list-watcher.js';
import type { Discovery } from './discovery.js';
import type { KubeConnection } from './kube-connection.js';
import { resourcePath } from './resource-path.js';
import { decodeWatchLines } from './watch-line-decoder.js';
import { ResponseDecodeError } from './response-decode-error.js';

/** What a {@link HttpListWatcher} lists and watches. */
export interface ListWatchScope {
  /** Namespace to list; absent (or for a cluster-scoped resource) means all. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /**
   * Ask for the metadata-only view (`PartialObjectMetadata`, client-go's metadata informers): lists
   * and watches send the `Accept` headers below, and items and events carry only `metadata`.
   */
  readonly metadataOnly?: boolean | undefined;
}

/** `Accept` of a metadata-only list (as client-go's metadata client sends it). */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** `Accept` of a metadata-only watch. */
export const METADATA_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * The {@link ListWatcher} over HTTP: `list` sends one `GET …?limit=&continue=` and emits its page;
 * `watch` sends `GET …?watch=true` and emits the decoded events of the streamed body. Both are
 * cold and abort their request on unsubscribe. A resource given as `{ apiVersion, kind }` is
 * resolved through discovery on first use (cached).
 */
export class HttpListWatcher<T extends KubeObject = KubeObject> implements ListWatcher<T> {
  constructor(
    private readonly connection: KubeConnection,
    private readonly discovery: Discovery,
    private readonly resource: ResourceType<T>,
    private readonly scope: ListWatchScope = {},
  ) {}

  list(options: ListOptions): Observable<ListPage<T>> {
    return this.resolved().pipe(
      switchMap(
        (resource) =>
          new Observable<ListPage<T>>((subscriber) => {
            const abort = new AbortController();
            const path = resourcePath(resource, { namespace: this.scope.namespace });
            this.connection
              .request<KubeList<T>>(
                {
                  path,
                  ...(this.scope.metadataOnly === true ? { accept: METADATA_LIST_ACCEPT } : {}),
                  query: {
                    labelSelector: this.scope.labelSelector || undefined,
                    fieldSelector: this.scope.fieldSelector || undefined,
                    limit: options.limit || undefined,
                    continue: options.continue || undefined,
                    resourceVersion: options.resourceVersion,
                    resourceVersionMatch: options.resourceVersionMatch,
                  },
                },
                abort.signal,
              )
              .then(
                (list) => {
                  let page: ListPage<T>;
                  try {
                    page = toPage(list, path);
                  } catch (err) {
                    subscriber.error(err);
                    return;
                  }
                  subscriber.next(page);
                  subscriber.complete();
                },
                (err: unknown) => subscriber.error(err),
              );
            return () => abort.abort();
          }),
      ),
    );
  }

  watch(options: WatchOptions): Observable<WatchEvent<T>> {
    return this.resolved().pipe(
      switchMap((resource) =>
        this.connection.stream({
          path: resourcePath(resource, { namespace: this.scope.namespace }),
          ...(this.scope.metadataOnly === true ? { accept: METADATA_WATCH_ACCEPT } : {}),
          query: {
            watch: true,
            labelSelector: this.scope.labelSelector || undefined,
            fieldSelector: this.scope.fieldSelector || undefined,
            resourceVersion: options.resourceVersion,
            resourceVersionMatch: options.resourceVersionMatch,
            allowWatchBookmarks: options.allowWatchBookmarks,
            timeoutSeconds: options.timeoutSeconds,
            sendInitialEvents: options.sendInitialEvents,
          },
        }),
      ),
      decodeWatchLines<T>(),
    );
  }

  private resolved(): Observable<ResolvedResourceType<T>> {
    return defer(() => from(this.discovery.resolve(this.resource)));
  }
}

/** A list body as a page; fields of the wrong type are dropped, a body without an items array is refused. */
function toPage<T extends KubeObject>(list: KubeList<T>, path: string): ListPage<T> {
  const body: unknown = list;
  const items: unknown = typeof body === 'object' && body !== null ? (body as { items?: unknown }).items : undefined;
  // An empty list may come without `items` (kube-apiserver omits an empty array in some versions).
  if (items !== undefined && items !== null && !Array.isArray(items)) throw new ResponseDecodeError('GET', path, 'list response without an items array');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ResponseDecodeError('GET', path, 'list response is not an object');
  const rawMeta: unknown = (body as { metadata?: unknown }).metadata;
  const meta = (typeof rawMeta === 'object' && rawMeta !== null ? rawMeta : {}) as { resourceVersion?: unknown; continue?: unknown; remainingItemCount?: unknown };
  return {
    items: (items ?? []) as T[],
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
    ...(typeof meta.continue === 'string' && meta.continue !== '' ? { continue: meta.continue } : {}),
    ...(typeof meta.remainingItemCount === 'number' ? { remainingItemCount: meta.remainingItemCount } : {}),
  };
}
