import type { Observable } from 'rxjs';
import type { KubeObject } from './kube-object.js';
import type { Status } from './status.js';

/** Query parameters of a list request. */
export interface ListOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; 0 or absent means no paging. */
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact';
}

/** Query parameters of a watch request. */
export interface WatchOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  readonly allowWatchBookmarks?: boolean;
  readonly timeoutSeconds?: number;
  readonly sendInitialEvents?: boolean;
}

/** One page of a list response. */
export interface ListPage<T extends KubeObject = KubeObject> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
  /** Continue token; empty or absent on the last page. */
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** One decoded line of a watch stream. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; readonly object: T }
  | { readonly type: 'ERROR'; readonly object: Status };

/** One `apiVersion` and `kind` an object may carry. */
export interface ExpectedObjectType {
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * What every object a {@link ListWatcher} delivers must be: the reflector rejects (and reports) a
 * list item or watch event whose `apiVersion`/`kind` or `metadata.namespace` says otherwise, so a
 * broken or hostile server cannot put another resource into a cache. A field the object leaves out
 * is not checked (list items usually carry no `kind`; cluster-scoped objects no namespace).
 */
export interface ExpectedObjects {
  /** The accepted types; absent or empty: any. */
  readonly types?: readonly ExpectedObjectType[];
  /** The namespace of a namespaced list and watch; absent: any. */
  readonly namespace?: string;
}

/** What a {@link ListWatcher} lists and watches, to name it in errors (never a credential). */
export interface ListWatchTarget {
  readonly apiVersion: string;
  readonly kind: string;
  /** The namespace; absent for every namespace (or a cluster-scoped resource). */
  readonly namespace?: string;
  /** The API server's URL without user info (`https://10.0.0.1:6443`). */
  readonly server?: string;
}

/**
 * The transport a reflector runs on: one list page and one watch stream for a fixed resource,
 * namespace and selectors. Both are cold Observables: subscribing sends the request, unsubscribing
 * aborts it.
 *
 * - `list` emits exactly one page and completes, or errors (`ApiError` for Status responses,
 *   other errors for the network).
 * - `watch` emits decoded events in order and completes when the server ends the stream. It errors
 *   with `ApiError` when the watch request itself fails (HTTP status) and with a typed decode error
 *   for a malformed line. `ERROR` events are emitted as events (the reflector turns them into
 *   errors), so the transport stays a faithful view of the wire.
 */
export interface ListWatcher<T extends KubeObject = KubeObject> {
  /**
   * `true` declares that this transport passes `sendInitialEvents` on to a server, so the
   * reflector may start a cycle with a streaming list (docs/semantics.md WL-1); the server may
   * still refuse it (WL-5). Absent or `false`: the reflector always lists and watches, so a
   * transport written for list + watch never sees a streaming-list request.
   */
  readonly supportsStreamingList?: boolean;
  /** What the objects it delivers must be; the reflector skips and reports any other. Absent: not checked. */
  readonly expectedObjects?: ExpectedObjects;
  /** What it lists and watches, and from which server: named in `ReflectorFatalError`. Absent: not named. */
  readonly target?: ListWatchTarget;
  list(options: ListOptions): Observable<ListPage<T>>;
  watch(options: WatchOptions): Observable<WatchEvent<T>>;
}
