import { defer, from, map, Observable, switchMap } from 'rxjs';
import type { KubeList, KubeObject } from '../api/kube-object.js';
import type { Resource } from '../api/resource.js';
import type { ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from '../reflector/list-watcher.js';
import type { Discovery } from './discovery.js';
import type { KubeConnection } from './kube-connection.js';
import { resourcePath, type ResourceRef } from './resource-path.js';
import { decodeWatchLines } from './watch-line-decoder.js';

/** What a {@link HttpListWatcher} lists and watches. */
export interface ListWatchScope {
  /** Namespace to list; absent (or for a cluster-scoped resource) means all. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
}

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
    private readonly resource: ResourceRef,
    private readonly scope: ListWatchScope = {},
  ) {}

  list(options: ListOptions): Observable<ListPage<T>> {
    return this.resolved().pipe(
      switchMap(
        (resource) =>
          new Observable<KubeList<T>>((subscriber) => {
            const abort = new AbortController();
            this.connection
              .request<KubeList<T>>(
                {
                  path: resourcePath(resource, { namespace: this.scope.namespace }),
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
                  subscriber.next(list);
                  subscriber.complete();
                },
                (err: unknown) => subscriber.error(err),
              );
            return () => abort.abort();
          }),
      ),
      map((list) => toPage(list)),
    );
  }

  watch(options: WatchOptions): Observable<WatchEvent<T>> {
    return this.resolved().pipe(
      switchMap((resource) =>
        this.connection.stream({
          path: resourcePath(resource, { namespace: this.scope.namespace }),
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

  private resolved(): Observable<Resource> {
    return defer(() => from(this.discovery.resolve(this.resource)));
  }
}

function toPage<T extends KubeObject>(list: KubeList<T>): ListPage<T> {
  const meta = list?.metadata ?? {};
  return {
    items: list?.items ?? [],
    resourceVersion: meta.resourceVersion ?? '',
    ...(meta.continue ? { continue: meta.continue } : {}),
    ...(meta.remainingItemCount !== undefined ? { remainingItemCount: meta.remainingItemCount } : {}),
  };
}
