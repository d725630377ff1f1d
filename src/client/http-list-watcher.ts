import { defer, filter, from, map, Observable, type OperatorFunction, switchMap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ResolvedResourceType, ResourceType } from '../api/resource.js';
import type { ExpectedObjects, ListOptions, ListPage, ListWatchTarget, WatchEvent, WatchOptions } from '../api/list-watcher.js';
import { printableServer } from './api-request-context.js';
import type { Discovery } from './discovery.js';
import type { ApiConnection } from './api-connection.js';
import { resourcePath } from './resource-path.js';
import { decodeWatchLines } from './watch-line-decoder.js';
import { ListBodyDecoder, type ListDecodeMode } from './list-body-decoder.js';
import type { ListPagePart, ListPartsOptions, PipelinedListWatcher } from './list-parts.js';

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
  /**
   * Longest watch line (one event) in bytes; a longer one fails the watch with
   * `WatchLineTooLongError`. Default 16 MiB (`DEFAULT_MAX_WATCH_LINE_BYTES`).
   */
  readonly maxWatchLineBytes?: number | undefined;
  /**
   * Watch events arrive without `metadata.managedFields`: each watch line is parsed with that
   * member cut out (see `WatchLineDecoderOptions.omitManagedFields`). An informer sets this when
   * its transform is the default one, which drops the field anyway. Paged lists are not affected;
   * a streaming list (a watch with `sendInitialEvents`) is.
   * Default `false`.
   */
  readonly omitManagedFields?: boolean | undefined;
}

/** `Accept` of a metadata-only list (as client-go's metadata client sends it). */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** `Accept` of a metadata-only watch. */
export const METADATA_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/**
 * The `ListWatcher` over HTTP: `list` sends one `GET …?limit=&continue=` and emits its page;
 * `listParts` does the same but first emits the page's head (resourceVersion and continue token,
 * read from the body's first bytes) so a pager can pipeline its requests; `watch` sends
 * `GET …?watch=true` and emits the decoded events of the streamed body. All are cold and abort
 * their request on unsubscribe. A resource given as `{ apiVersion, kind }` is resolved through
 * discovery on first use (cached).
 */
export class HttpListWatcher<T extends KubeObject = KubeObject> implements PipelinedListWatcher<T> {
  constructor(
    private readonly connection: ApiConnection,
    private readonly discovery: Discovery,
    private readonly resource: ResourceType<T>,
    private readonly scope: ListWatchScope = {},
    private readonly decode: ListDecodeMode = 'whole',
  ) {
    const own = { apiVersion: resource.apiVersion, kind: resource.kind };
    const types = scope.metadataOnly === true ? [own, { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata' }] : [own];
    this.expectedObjects = scope.namespace ? { types, namespace: scope.namespace } : { types };
    this.target = { ...own, ...(scope.namespace ? { namespace: scope.namespace } : {}), server: printableServer(connection.server) };
  }

  /** The resource, the scope's namespace and the connection's server (without credentials). */
  readonly target: ListWatchTarget;

  /**
   * The resource's `apiVersion`/`kind` (and, for the metadata-only view, `meta.k8s.io/v1`
   * `PartialObjectMetadata`) and the scope's namespace: the reflector skips and reports any list
   * item or watch event that says otherwise.
   */
  readonly expectedObjects: ExpectedObjects;

  /**
   * It sends `sendInitialEvents` to the server, which decides: a server that refuses the request
   * is asked once, then listed and watched (docs/semantics.md WL-1, WL-5).
   */
  readonly supportsStreamingList = true;

  list(options: ListOptions): Observable<ListPage<T>> {
    return this.listParts(options).pipe(
      filter((part): part is Extract<ListPagePart<T>, { type: 'page' }> => part.type === 'page'),
      map((part) => part.page),
    );
  }

  /**
   * `list`, with the page's head (resourceVersion, continue token) emitted as soon as the list's
   * `metadata` has arrived, before its items; then the page. With `decode: 'items'` (the
   * constructor's, or this request's `parts.decode`) every item is parsed as soon as it has arrived.
   */
  listParts(options: ListOptions, parts: ListPartsOptions = {}): Observable<ListPagePart<T>> {
    return this.resolved().pipe(
      switchMap((resource) => {
        const path = resourcePath(resource, { namespace: this.scope.namespace });
        const query = {
          labelSelector: this.scope.labelSelector || undefined,
          fieldSelector: this.scope.fieldSelector || undefined,
          limit: options.limit || undefined,
          continue: options.continue || undefined,
          resourceVersion: options.resourceVersion,
          resourceVersionMatch: options.resourceVersionMatch,
        };
        return this.connection.stream({ path, query, ...(this.scope.metadataOnly === true ? { accept: METADATA_LIST_ACCEPT } : {}) }).pipe(decodeListBody<T>(parts.decode ?? this.decode, path, parts.decode === undefined && parts.unparsed === true));
      }),
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
      decodeWatchLines<T>({
        ...(this.scope.maxWatchLineBytes === undefined ? {} : { maxLineBytes: this.scope.maxWatchLineBytes }),
        ...(this.scope.omitManagedFields === true ? { omitManagedFields: true } : {}),
      }),
    );
  }

  private resolved(): Observable<ResolvedResourceType<T>> {
    return defer(() => from(this.discovery.resolve(this.resource)));
  }
}

/** Decodes a streamed list body: a `head` part as soon as the list's metadata is read, then the `page`. */
function decodeListBody<T extends KubeObject>(mode: ListDecodeMode, path: string, unparsed: boolean): OperatorFunction<Uint8Array, ListPagePart<T>> {
  return (chunks) =>
    new Observable<ListPagePart<T>>((subscriber) => {
      const decoder = new ListBodyDecoder<T>(mode, path, (head) => subscriber.next({ type: 'head', ...head }), unparsed);
      return chunks.subscribe({
        next(chunk) {
          try {
            decoder.push(chunk);
          } catch (err) {
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete() {
          const raw = unparsed ? decoder.endUnparsed() : undefined;
          if (raw !== undefined) {
            subscriber.next({ type: 'body', body: raw.body, path });
            subscriber.complete();
            return;
          }
          let page: ListPage<T>;
          try {
            page = decoder.end();
          } catch (err) {
            subscriber.error(err);
            return;
          }
          subscriber.next({ type: 'page', page });
          subscriber.complete();
        },
      });
    });
}
