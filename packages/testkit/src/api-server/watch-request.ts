import type { ServerResponse } from 'node:http';
import type { Status } from 'rxkube';
import type { Faults } from './faults.js';
import { optionalInt } from './http-io.js';
import type { KubernetesVersion } from './kubernetes-version.js';
import { watchListParams } from './watch-options.js';
import { messageFor } from './protobuf/codec.js';
import { watchResponse } from './protobuf/watch-stream.js';
import type { ObjectStore, StoredEntry } from './object-store.js';
import { requestSelectors } from './request-selectors.js';
import { apiVersionOf, resourceId, type ServedResource } from './resource-registry.js';
import type { ResolvedRoute } from './route.js';
import { badRequest, failure, StatusError } from './status-error.js';
import { partialObjectJson } from './partial-metadata.js';
import { tableJson } from './table-view.js';
import { conversionOf, type CrdConverter } from './admission/webhooks/crd-conversion.js';
import type { WatchHub } from './watch-hub.js';

/** What a watch request needs from the server. */
export interface WatchDeps {
  readonly store: ObjectStore;
  readonly hub: WatchHub;
  readonly faults: Faults;
  readonly bookmarkIntervalMs: number;
  readonly defaultWatchTimeoutSeconds: number | undefined;
  /** The emulated version: whether streaming lists are served (see watch-options.ts). */
  readonly kubernetesVersion: KubernetesVersion;
  /** Converts custom resources of multi-version CRDs (watch events too). */
  readonly conversion?: CrdConverter;
}

/**
 * Serves a watch: validates the parameters (422 / 400 before any byte is sent), answers 200 with a
 * chunked stream, then sends the initial state (resourceVersion unset or 0, or sendInitialEvents
 * where the emulated version serves streaming lists)
 * or replays the history after the given version (an ERROR event with 410 when it is compacted),
 * and hands the connection to the hub for live events.
 */
export function serveWatch(deps: WatchDeps, res: ServerResponse, t: ResolvedRoute, q: URLSearchParams, method: string, table?: string, metadataOnly = false): void {
  const name = t.name;
  const { r } = t;
  const store = deps.store;
  const sel = requestSelectors(r, q, name);
  const rvParam = q.get('resourceVersion') ?? '';
  const { sendInitialParam, sendInitial, bookmarks } = watchListParams(q, deps.kubernetesVersion);
  let fromRv: number | undefined;
  if (rvParam !== '' && rvParam !== '0') {
    if (!/^\d+$/.test(rvParam)) throw badRequest(`invalid resource version: ${rvParam}`);
    fromRv = Number(rvParam);
  }
  const timeoutParam = optionalInt(q, 'timeoutSeconds');
  const timeoutSeconds = timeoutParam ?? deps.defaultWatchTimeoutSeconds;
  const apiVersion = apiVersionOf(r.group, t.version);
  // Protobuf clients get length-prefixed frames (not for Table watches or kinds without a message).
  const out = table === undefined ? watchResponse(res, messageFor(apiVersion, r.kind) !== undefined) : { res, contentType: 'application/json' };
  res.writeHead(200, { 'Content-Type': out.contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const conn = deps.hub.open(out.res, {
    filter: { resourceId: resourceId(r), namespace: t.namespace, matches: sel.matches },
    // A metadata-only watch (Accept as=PartialObjectMetadata) sends every object, bookmarks too, as PartialObjectMetadata.
    kind: metadataOnly ? 'PartialObjectMetadata' : r.kind,
    apiVersion: metadataOnly ? 'meta.k8s.io/v1' : apiVersion,
    bookmarks,
    bookmarkIntervalMs: deps.bookmarkIntervalMs,
    timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
    maxEvents: deps.faults.takeWatchLimit(method, t.path),
    ...(table !== undefined ? { renderObject: tableRenderer(r, table) } : metadataOnly ? { renderObject: (e: StoredEntry) => partialObjectJson(e.object) } : deps.conversion !== undefined ? deps.conversion.watchRendering(r, t.version) : noneConversion(store, r, apiVersion)),
    ...(fromRv !== undefined && !sendInitial ? { afterRv: fromRv } : {}),
  });
  // A client that gave up before the watch was served (during injected latency, say) closed the
  // socket already: its 'close' will not come again, so the watch ends now instead of staying open.
  if (res.destroyed) {
    conn.destroy();
    return;
  }
  if (sendInitialParam !== null && !sendInitial && fromRv === undefined) return; // sendInitialEvents=false: from now, no initial state
  if (sendInitial || fromRv === undefined) {
    // From "now": the current state as ADDED events (then the initial-events-end bookmark).
    if (fromRv !== undefined && fromRv > store.resourceVersion) {
      conn.error(tooLargeStatus(fromRv, store.resourceVersion));
      return;
    }
    conn.sendInitial(store.snapshot(resourceId(r)));
    if (sendInitial) conn.bookmark({ 'k8s.io/initial-events-end': 'true' });
    return;
  }
  try {
    for (const e of store.eventsSince(resourceId(r), fromRv)) conn.deliver(e);
  } catch (e) {
    if (e instanceof StatusError) conn.error(e.status);
    else throw e;
  }
}

/**
 * Without a converter: a multi-version custom resource with `conversion.strategy: None` gets its
 * objects in the watched version (apiVersion set).
 */
function noneConversion(store: ObjectStore, r: ServedResource, apiVersion: string): { renderObject?: (e: StoredEntry) => string } {
  if (!r.custom || r.versions.length < 2 || conversionOf(store, r).strategy !== 'None') return {};
  return { renderObject: (e) => (e.object.apiVersion === apiVersion ? e.json : JSON.stringify({ ...e.object, apiVersion })) };
}

function tooLargeStatus(asked: number, current: number): Status {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${asked}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/** Renders watch objects as one-row Tables; only the first carries the column definitions (as kube-apiserver). */
function tableRenderer(r: ServedResource, includeObject: string): (entry: StoredEntry) => string {
  let first = true;
  return (entry) => {
    const json = tableJson(r, [entry.object], { resourceVersion: String(entry.rv) }, includeObject, first);
    first = false;
    return json;
  };
}
