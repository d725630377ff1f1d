import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.js';
import type { Faults } from './faults.js';
import { isTrue, optionalInt, parseJsonBody, readBody, sendJson, sendStatus } from './http-io.js';
import { listJson, listPage } from './list-operation.js';
import type { DeleteOptions, ObjectService } from './object-service.js';
import { openApiV3Document, openApiV3Index } from './openapi.js';
import { patchObject, serverSideApply } from './patch-request.js';
import type { RequestLog } from './request-log.js';
import { requestSelectors } from './request-selectors.js';
import { apiVersionOf, resourceId, type ResourceRegistry } from './resource-registry.js';
import { parseRoute, type ResolvedRoute } from './route.js';
import { badRequest, failure, methodNotAllowed, reasonForCode, StatusError, unauthorized, unknownPath, unsupportedMediaType } from './status-error.js';
import type { WatchHub } from './watch-hub.js';
import { serveWatch } from './watch-request.js';
import { tableJson, wantsTable } from './table-view.js';
import { metadataView, notAcceptable, partialListJson, partialObjectJson } from './partial-metadata.js';

/** Settings the handler needs from the server options. */
export interface HandlerSettings {
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  readonly bookmarkIntervalMs: number;
  readonly defaultWatchTimeoutSeconds: number | undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Serves the kube-apiserver HTTP API over the store, the registry and the watch hub. */
export class RequestHandler {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly service: ObjectService,
    private readonly hub: WatchHub,
    private readonly faults: Faults,
    private readonly log: RequestLog,
    private readonly settings: HandlerSettings,
  ) {}

  /** Handles one HTTP request; never throws. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.serve(req, res).catch((e: unknown) => {
      if (e instanceof StatusError) sendStatus(res, e);
      else sendStatus(res, new StatusError(failure(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`)));
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const route = parseRoute(url.pathname, (g, p) => this.registry.byGroupPlural(g, p) !== undefined);
    const q = url.searchParams;
    const watch =
      route.type === 'resource' && method === 'GET' && (route.watchPrefix || isTrue(q.get('watch')));
    this.log.record(method, url.pathname, url.search, watch, route.type === 'resource' ? `${route.group}/${route.plural}` : undefined);

    const open = route.type === 'health' || route.type === 'version';
    if (this.settings.token !== undefined && !open) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${this.settings.token}`) throw unauthorized();
    }
    const delay = this.faults.latencyFor(method, url.pathname, watch);
    if (delay > 0) await sleep(delay);
    const fail = this.faults.takeFailure(method, url.pathname, watch);
    if (fail !== undefined) {
      const retry = fail.retryAfterSeconds;
      req.resume();
      throw new StatusError(
        failure(fail.code, fail.reason ?? reasonForCode(fail.code), fail.message ?? `injected failure (${fail.code})`, retry !== undefined ? { retryAfterSeconds: retry } : undefined),
        retry !== undefined ? { 'Retry-After': String(retry) } : {},
      );
    }

    switch (route.type) {
      case 'root':
        return sendJson(res, 200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/version'] });
      case 'version':
        return sendJson(res, 200, SERVER_VERSION);
      case 'health':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        return void res.end('ok');
      case 'api':
        return sendJson(res, 200, apiVersions());
      case 'apis':
        return sendJson(res, 200, apiGroupList(this.registry));
      case 'group': {
        const g = apiGroup(this.registry, route.group);
        if (g === undefined) throw unknownPath();
        return sendJson(res, 200, g);
      }
      case 'groupVersion': {
        const l = apiResourceList(this.registry, route.group, route.version);
        if (l === undefined) throw unknownPath();
        return sendJson(res, 200, l);
      }
      case 'openapi': {
        if (url.pathname === '/openapi/v3' || url.pathname === '/openapi/v3/') return sendJson(res, 200, openApiV3Index(this.registry));
        const doc = url.pathname.startsWith('/openapi/v3/') ? openApiV3Document(this.registry, url.pathname.slice('/openapi/v3/'.length)) : undefined;
        if (doc === undefined) throw unknownPath();
        return sendJson(res, 200, doc);
      }
      case 'unknown':
        throw unknownPath();
      case 'resource': {
        const r = this.registry.find(route.group, route.version, route.plural);
        if (r === undefined) throw unknownPath();
        return this.serveResource(req, res, { ...route, r, path: url.pathname }, method, q, watch);
      }
    }
  }

  private async serveResource(req: IncomingMessage, res: ServerResponse, t: ResolvedRoute, method: string, q: URLSearchParams, watch: boolean): Promise<void> {
    const { r } = t;
    if (t.namespace !== undefined && !r.namespaced) throw unknownPath();
    if (t.subresource !== undefined && !(t.subresource === 'status' && r.hasStatus)) throw unknownPath();
    const bodyType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if ((method === 'POST' || method === 'PUT') && bodyType !== '' && bodyType !== 'application/json' && bodyType !== '*/*') {
      req.resume();
      throw unsupportedMediaType(bodyType);
    }
    const view = method === 'GET' ? metadataView(req.headers.accept) : undefined;
    if (watch) {
      const tableMode = wantsTable(req.headers.accept) ? (q.get('includeObject') ?? 'Metadata') : undefined;
      if (view === 'list') throw notAcceptable('you requested PartialObjectMetadataList, but the requested object is not a list (*v1.WatchEvent)');
      return serveWatch({ store: this.service.store, hub: this.hub, faults: this.faults, ...this.settings }, res, t, q, method, tableMode, view === 'object');
    }
    const table = wantsTable(req.headers.accept) ? (q.get('includeObject') ?? 'Metadata') : undefined;
    if (method === 'GET') {
      if (t.name === undefined) {
        if (view === 'object') throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (*v1.${r.kind}List)`);
        if (view === 'list') return this.listMetadata(res, t, q);
        return this.list(res, t, q, table);
      }
      if (view === 'list') throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (*v1.${r.kind})`);
      const entry = this.service.get(r, t.namespace, t.name);
      if (view === 'object') return sendJson(res, 200, partialObjectJson(entry.object));
      if (table !== undefined) return sendJson(res, 200, tableJson(r, [entry.object], { resourceVersion: String(entry.rv) }, table));
      return sendJson(res, 200, entry.json);
    }
    if (method === 'DELETE' && t.name === undefined) return this.deleteCollection(res, t, q);
    const body = await readBody(req, this.settings.maxBodyBytes);
    const dryRun = q.getAll('dryRun');
    const unsupported = dryRun.find((d) => d !== 'All');
    if (unsupported !== undefined) throw badRequest(`Unsupported value: "${unsupported}": supported values: "All"`);
    const write = () => this.write(res, t, method, body, bodyType, q);
    return dryRun.length > 0 ? this.service.dryRun(write) : write();
  }

  /** POST, PUT, PATCH and DELETE of one object (synchronous, so a dry run can wrap it). */
  private write(res: ServerResponse, t: ResolvedRoute, method: string, raw: Buffer, contentType: string, q: URLSearchParams): void {
    const { r } = t;
    const version = t.version;
    if (t.name === undefined) {
      if (method !== 'POST') throw methodNotAllowed(method);
      const obj = this.service.decode(r, version, parseJsonBody(raw, r));
      return sendJson(res, 201, this.service.create(r, t.namespace, obj).json);
    }
    if (method === 'POST') throw methodNotAllowed(method);
    const sub = t.subresource === 'status' ? 'status' : undefined;
    switch (method) {
      case 'PUT': {
        const obj = this.service.decode(r, version, parseJsonBody(raw, r));
        return sendJson(res, 200, this.service.update(r, t.namespace, t.name, obj, sub).json);
      }
      case 'PATCH':
        if (contentType === 'application/apply-patch+yaml') {
          const applied = serverSideApply(this.service, t, raw, q, sub);
          return sendJson(res, applied.code, applied.entry.json);
        }
        return sendJson(res, 200, patchObject(this.service, t, contentType, raw, sub).json);
      case 'DELETE': {
        if (sub !== undefined) throw methodNotAllowed(method);
        const opts = raw.length > 0 ? (parseJsonBody(raw, undefined) as DeleteOptions) : {};
        const { entry, deleted } = this.service.delete(r, t.namespace, t.name, typeof opts === 'object' && opts !== null ? opts : {});
        if (!deleted || r.custom || r.plural === 'pods' || r.plural === 'namespaces') return sendJson(res, 200, entry.json);
        const uid = entry.object.metadata?.uid;
        return sendJson(res, 200, {
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success',
          details: { name: t.name, ...(r.group !== '' ? { group: r.group } : {}), kind: r.plural, ...(uid !== undefined ? { uid } : {}) },
        });
      }
      default:
        throw methodNotAllowed(method);
    }
  }

  /** A list as `PartialObjectMetadataList` (Accept `as=PartialObjectMetadataList`). */
  private listMetadata(res: ServerResponse, t: ResolvedRoute, q: URLSearchParams): void {
    const { r } = t;
    const sel = requestSelectors(r, q);
    const page = listPage(this.service.store, {
      resourceId: resourceId(r),
      namespace: t.namespace,
      matches: sel.matches,
      selective: sel.selective,
      limit: optionalInt(q, 'limit'),
      continueToken: q.get('continue') ?? undefined,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    });
    sendJson(res, 200, partialListJson(page));
  }

  private list(res: ServerResponse, t: ResolvedRoute, q: URLSearchParams, table: string | undefined): void {
    const { r } = t;
    const sel = requestSelectors(r, q);
    const limit = optionalInt(q, 'limit');
    const page = listPage(this.service.store, {
      resourceId: resourceId(r),
      namespace: t.namespace,
      matches: sel.matches,
      selective: sel.selective,
      limit,
      continueToken: q.get('continue') ?? undefined,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    });
    if (table !== undefined) {
      const meta = {
        resourceVersion: String(page.resourceVersion),
        ...(page.continueToken !== undefined ? { continue: page.continueToken } : {}),
        ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
      };
      return sendJson(res, 200, tableJson(r, page.items.map((e) => e.object), meta, table));
    }
    sendJson(res, 200, listJson(r.kind, apiVersionOf(r.group, t.version), page));
  }

  private deleteCollection(res: ServerResponse, t: ResolvedRoute, q: URLSearchParams): void {
    const { r } = t;
    const sel = requestSelectors(r, q);
    const page = listPage(this.service.store, {
      resourceId: resourceId(r), namespace: t.namespace, matches: sel.matches, selective: true,
      limit: undefined, continueToken: undefined, resourceVersion: undefined, resourceVersionMatch: undefined,
    });
    const out = [];
    for (const e of page.items) {
      const name = e.object.metadata?.name ?? '';
      out.push(this.service.delete(r, e.object.metadata?.namespace, name).entry);
    }
    sendJson(res, 200, listJson(r.kind, apiVersionOf(r.group, t.version), { resourceVersion: this.service.store.resourceVersion, items: out, continueToken: undefined, remainingItemCount: undefined }));
  }
}
