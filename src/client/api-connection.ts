import type { Observable } from 'rxjs';
import type { KubeRequest, RequestOptions, StreamOptions } from './kube-request.js';
import type { RequestObserver } from './request-outcome.js';

/**
 * The seam between rxkube's client and the wire: what `KubeClient`, discovery, object clients and
 * list/watchers use of a connection. `KubeConnection` implements it over `node:http(s)` with a
 * kubeconfig's credentials, `FetchConnection` over `fetch` and web streams (browsers, any runtime
 * with `fetch`), the test kit's `InProcessConnection` straight into an embedded server.
 *
 * Every implementation keeps the same semantics: `request` retries 429/503/504 with backoff and
 * honours `Retry-After`, each attempt has a deadline, errors are `ApiError` / `NetworkError` /
 * `RequestTimeoutError` / `ResponseDecodeError` with credentials masked; `stream` is cold, aborts
 * its request on unsubscribe and bounds a list's quiet gaps (not a watch's).
 */
export interface ApiConnection {
  /** The server URL. */
  readonly server: URL;
  /** The default namespace (the kubeconfig context's, or the one given), if any. */
  readonly namespace: string | undefined;
  /** The default deadline of non-watch requests, in ms (0: none). */
  readonly requestTimeoutMs: number;
  /**
   * Sends a request and resolves with its parsed JSON body (undefined when empty), retrying as the
   * connection's retry policy (or `options.retry`) says; `signal` cancels it, and a wait between
   * attempts.
   */
  request<T>(request: KubeRequest, signal?: AbortSignal, options?: RequestOptions): Promise<T>;
  /** A streaming GET: the response body's chunks as they arrive; completes at its end. Cold. */
  stream(request: KubeRequest, options?: StreamOptions): Observable<Uint8Array>;
  /** Calls `observer` after every request (see `RequestOutcome`); returns the function that removes it. */
  observeRequests(observer: RequestObserver): () => void;
  /** Ends the connection: requests after this fail. */
  close(): void;
}
