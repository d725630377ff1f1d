import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { versionInfo, type KubernetesVersion } from './kubernetes-version.js';
import type { Faults } from './faults.js';
import { isTrue, optionalInt, parseBody, parseJsonBody, readBody, sendJson, sendStatus } from './http-io.js';
import { negotiate, PROTOBUF } from './protobuf/negotiation.js';
import { listJson, listPage } from './list-operation.js';
import type { DeleteOptions, ObjectService } from './object-service.js';
import { openApiV2Document, openApiV3Document, openApiV3Index, type OpenApiV2Doc } from './openapi.js';
import { OPENAPI_V2_PROTOBUF, openApiV2Protobuf } from './openapi-v2-protobuf.js';
import { managerOf, patchObject, serverSideApply, withUpdateOwnership } from './patch-request.js';
import type { RequestLog } from './request-log.js';
import { requestSelectors } from './request-selectors.js';
import { apiVersionOf, resourceId, type ResourceRegistry, type ServedResource } from './resource-registry.js';
import { CRD_RESOURCE_ID } from './crd-controller.js';
import { deleteQueryOptions } from './namespace-finalize.js';
import { allowAll, type Authorizer, type UserInfo } from './access-review.js';
import { authenticate, forbidden, rbacAuthorizer, requestAttributes, type RbacOptions } from './rbac.js';
import { scaleDiscoveryEntry, scaleSpecOf, serveScale, type ScaleSpec } from './scale-subresource.js';
import { parseRoute, type ResolvedRoute } from './route.js';
import { badRequest, failure, methodNotAllowed, reasonForCode, StatusError, unknownPath, unsupportedMediaType } from './status-error.js';
import type { WatchHub } from './watch-hub.js';
import { warningHeaders, type WebhookGate } from './admission/webhooks/webhook-gate.js';
import type { CrdConverter } from './admission/webhooks/crd-conversion.js';
import { type AdmissionRequestContext, type AdmissionRequestHolder } from './admission/policy/request-context.js';
import type { StorageVersionWrites, StorageWrite } from './admission/webhooks/storage-version.js';
import type { StoredEntry } from './object-store.js';
import { serveWatch } from './watch-request.js';
import { tableJson, wantsTable } from './table-view.js';
import { metadataView, notAcceptable, partialListJson, partialObjectJson } from './partial-metadata.js';

/** Settings the handler needs from the server options. */
export interface HandlerSettings {
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  readonly bookmarkIntervalMs: number;
  readonly defaultWatchTimeoutSeconds: number | undefined;
  /** Page `resourceVersion=0` lists by `limit` (kube-apiserver serves them whole). */
  readonly pageResourceVersionZeroLists?: boolean;
  /** RBAC authorization with token users; off when absent. */
  readonly rbac?: RbacOptions;
  /** The emulated Kubernetes version (`/version`, OpenAPI, streaming lists). */
  readonly kubernetesVersion: KubernetesVersion;
  /** Where admission learns the request's user and sends warnings (validating admission policies). */
  readonly admissionRequests?: AdmissionRequestHolder;
}

/** A write's answer: status code and body (sent once admission is done). */
interface WriteAnswer {
  readonly code: number;
  readonly body: string | object;
}

function answer(code: number, body: string | object): WriteAnswer {
  return { code, body };
}

/** `/openapi/v2`: gnostic protobuf when asked for (kubectl), JSON otherwise. */
function sendOpenApiV2(req: IncomingMessage, res: ServerResponse, doc: OpenApiV2Doc): void {
  const accept = req.headers.accept ?? '';
  if (accept.includes(OPENAPI_V2_PROTOBUF)) {
    const bytes = openApiV2Protobuf(doc);
    // kube-apiserver labels it application/octet-stream (the '@' of the asked type is not valid in a Content-Type).
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
    res.end(bytes);
    return;
  }
  sendJson(res, 200, doc);
}

const ADMIN_USER: UserInfo = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/** How many times a patch through another version is prepared again when a write got in between. */
const MAX_STORAGE_ATTEMPTS = 5;

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
    /** Admission webhooks of writes; none when absent. */
    private readonly webhooks?: WebhookGate,
    /** Conversion of multi-version custom resources to the requested version; none when absent. */
    private readonly conversion?: CrdConverter,
    /** Writes of custom resources in their storage version; none when absent (kept as written). */
    private readonly storage?: StorageVersionWrites,
  ) {
    this.authorizer = settings.rbac === undefined ? allowAll : rbacAuthorizer(service.store);
  }

  private readonly authorizer: Authorizer;

  /** Handles one HTTP request; never throws. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    negotiate(res, req.headers.accept);
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
    this.log.record(
      method, url.pathname, url.search, watch, route.type === 'resource' ? `${route.group}/${route.plural}` : undefined,
      (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '', req.headers.accept ?? '',
    );

    const open = route.type === 'health' || route.type === 'version';
    const user = open ? ADMIN_USER : authenticate(req, this.settings.token, this.settings.rbac);
    if (this.settings.rbac !== undefined && !open) {
      const attrs = route.type === 'resource'
        ? requestAttributes(method, watch, { ...route, name: route.name, subresource: route.subresource })
        : { nonResourceAttributes: { path: url.pathname, verb: method.toLowerCase() } };
      if (!this.authorizer(user, attrs).allowed) throw forbidden(user, attrs);
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
        return sendJson(res, 200, versionInfo(this.settings.kubernetesVersion));
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
        const l = apiResourceList(this.registry, route.group, route.version, (r) => (this.scaleSpec(r) !== undefined ? [scaleDiscoveryEntry(r)] : []));
        if (l === undefined) throw unknownPath();
        return sendJson(res, 200, l);
      }
      case 'openapi': {
        if (url.pathname === '/openapi/v3' || url.pathname === '/openapi/v3/') return sendJson(res, 200, openApiV3Index(this.registry));
        if (url.pathname === '/openapi/v2') return sendOpenApiV2(req, res, openApiV2Document(this.registry));
        const doc = url.pathname.startsWith('/openapi/v3/') ? openApiV3Document(this.registry, url.pathname.slice('/openapi/v3/'.length)) : undefined;
        if (doc === undefined) throw unknownPath();
        return sendJson(res, 200, doc);
      }
      case 'unknown':
        throw unknownPath();
      case 'resource': {
        const r = this.registry.find(route.group, route.version, route.plural);
        if (r === undefined) throw unknownPath();
        return this.serveResource(req, res, { ...route, r, path: url.pathname }, method, q, watch, user);
      }
    }
  }

  private async serveResource(req: IncomingMessage, res: ServerResponse, t: ResolvedRoute, method: string, q: URLSearchParams, watch: boolean, user: UserInfo): Promise<void> {
    const { r } = t;
    if (t.namespace !== undefined && !r.namespaced) throw unknownPath();
    const strategy = this.service.strategies.for(r);
    const own = watch ? undefined : t.subresource === undefined ? strategy.endpoint : strategy.subresources[t.subresource];
    if (own !== undefined && (t.subresource === undefined || t.name !== undefined)) {
      const answer = await own({
        req, method, r, version: t.version, namespace: t.namespace, name: t.name, service: this.service, user, authorizer: this.authorizer,
        readBody: () => readBody(req, this.settings.maxBodyBytes),
      });
      return sendJson(res, answer.code, answer.body);
    }
    if (t.subresource === 'scale' && t.name !== undefined && !watch) return this.scale(req, res, t, t.name, method, q);
    if (t.subresource !== undefined && !(t.subresource === 'status' && r.hasStatus)) throw unknownPath();
    const bodyType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if ((method === 'POST' || method === 'PUT') && bodyType !== '' && bodyType !== 'application/json' && bodyType !== '*/*' && !(bodyType === PROTOBUF && !r.custom)) {
      req.resume();
      throw unsupportedMediaType(bodyType);
    }
    const view = method === 'GET' ? metadataView(req.headers.accept) : undefined;
    if (watch) {
      const tableMode = wantsTable(req.headers.accept) ? (q.get('includeObject') ?? 'Metadata') : undefined;
      if (view === 'list') throw notAcceptable('you requested PartialObjectMetadataList, but the requested object is not a list (*v1.WatchEvent)');
      return serveWatch({ store: this.service.store, hub: this.hub, faults: this.faults, ...this.settings, ...(this.conversion !== undefined ? { conversion: this.conversion } : {}) }, res, t, q, method, tableMode, view === 'object');
    }
    const table = wantsTable(req.headers.accept) ? (q.get('includeObject') ?? 'Metadata') : undefined;
    if (method === 'GET') {
      if (t.name === undefined) {
        if (view === 'object') throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (*v1.${r.kind}List)`);
        if (view === 'list') return this.listMetadata(res, t, q);
        return await this.list(res, t, q, table);
      }
      if (view === 'list') throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (*v1.${r.kind})`);
      const entry = this.service.get(r, t.namespace, t.name);
      if (view === 'object') return sendJson(res, 200, partialObjectJson(entry.object));
      if (table !== undefined) return sendJson(res, 200, tableJson(r, [entry.object], { resourceVersion: String(entry.rv) }, table));
      return sendJson(res, 200, this.conversion !== undefined ? await this.conversion.body(r, t.version, entry.json) : entry.json);
    }
    if (method === 'DELETE' && t.name === undefined) return this.deleteCollection(res, t, q);
    const body = await readBody(req, this.settings.maxBodyBytes);
    const dryRun = q.getAll('dryRun');
    const unsupported = dryRun.find((d) => d !== 'All');
    if (unsupported !== undefined) throw badRequest(`Unsupported value: "${unsupported}": supported values: "All"`);
    const out = async (a: WriteAnswer): Promise<WriteAnswer> => (this.conversion !== undefined && a.code < 300 ? { code: a.code, body: await this.conversion.body(r, t.version, a.body) } : a);
    // A custom resource written through another version than its storage version: written in that one.
    for (let attempt = 1; ; attempt++) {
      const asked: StorageWrite = { t, method, body, contentType: bodyType, retryOnConflict: false };
      const w = this.storage === undefined ? asked : await this.storage.prepare(asked, () => this.storedEntry(t));
      try {
        return await this.admitAndWrite(res, w, t.version, q, managerOf(q, req.headers['user-agent']), dryRun.length > 0, user, out);
      } catch (e) {
        if (!(w.retryOnConflict && attempt < MAX_STORAGE_ATTEMPTS && e instanceof StatusError && e.status.code === 409)) throw e;
      }
    }
  }

  private storedEntry(t: ResolvedRoute): StoredEntry | undefined {
    return t.name === undefined ? undefined : this.service.store.get(resourceId(t.r), t.r.namespaced ? `${t.namespace ?? ''}/${t.name}` : t.name);
  }

  /** Runs one write (with the admission webhooks, when configured) and answers it. */
  private async admitAndWrite(res: ServerResponse, w: StorageWrite, requestVersion: string, q: URLSearchParams, manager: string, dryRun: boolean, user: UserInfo, out: (a: WriteAnswer) => Promise<WriteAnswer>): Promise<void> {
    const { t } = w;
    // Warnings of validating admission policies: those of the last run of the write (webhooks run it
    // more than once), sent with the webhooks' own, also on a refusal.
    const policyWarnings: string[] = [];
    const admissionContext = { user, dryRun, warn: (text: string) => void policyWarnings.push(text) };
    const write = (): WriteAnswer => {
      policyWarnings.length = 0;
      try {
        return this.withAdmissionContext(admissionContext, () => this.write(t, w.method, w.body, w.contentType, q, manager));
      } catch (e) {
        if (e instanceof StatusError && policyWarnings.length > 0) throw new StatusError(e.status, { ...e.headers, ...warningHeaders([...policyWarnings]) });
        throw e;
      }
    };
    if (this.webhooks === undefined) {
      const done = await out(dryRun ? this.service.dryRun(write) : write());
      return sendJson(res, done.code, done.body, warningHeaders(policyWarnings));
    }
    const fieldManager = q.get('fieldManager') ?? undefined;
    // Admission sees the request's version (the objects are converted for each webhook).
    const request = { r: t.r, version: requestVersion, namespace: t.namespace, name: t.name, dryRun, user, fieldManager };
    const { result, warnings } = await this.webhooks.admit(request, write, (fn) => this.service.dryRun(fn));
    const done = await out(result);
    return sendJson(res, done.code, done.body, warningHeaders([...warnings, ...policyWarnings]));
  }

  private withAdmissionContext<T>(context: AdmissionRequestContext, fn: () => T): T {
    const holder = this.settings.admissionRequests;
    return holder === undefined ? fn() : holder.during(context, fn);
  }

  private scaleSpec(r: ServedResource): ScaleSpec | undefined {
    return scaleSpecOf(r, this.service.strategies, (x) => this.service.store.get(CRD_RESOURCE_ID, `${x.plural}.${x.group}`)?.object);
  }

  /** `/scale` of a Deployment, ReplicaSet, StatefulSet or custom resource declaring it. */
  private async scale(req: IncomingMessage, res: ServerResponse, t: ResolvedRoute, name: string, method: string, q: URLSearchParams): Promise<void> {
    const spec = this.scaleSpec(t.r);
    if (spec === undefined) throw unknownPath();
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    const raw = method === 'GET' ? Buffer.alloc(0) : await readBody(req, this.settings.maxBodyBytes);
    const body = raw.length > 0 ? parseJsonBody(raw, { kind: 'Scale' }) : undefined;
    const run = () => sendJson(res, 200, serveScale(this.service, t.r, spec, { namespace: t.namespace, name }, method, body, contentType));
    return q.getAll('dryRun').length > 0 ? this.service.dryRun(run) : run();
  }

  /** POST, PUT, PATCH and DELETE of one object (synchronous, so a dry run can wrap it). */
  private write(t: ResolvedRoute, method: string, raw: Buffer, contentType: string, q: URLSearchParams, manager: string): WriteAnswer {
    const { r } = t;
    const version = t.version;
    if (t.name === undefined) {
      if (method !== 'POST') throw methodNotAllowed(method);
      const obj = withUpdateOwnership(this.service, r, version, undefined, this.service.decode(r, version, parseBody(raw, contentType, r), true), manager);
      return answer(201, this.service.create(r, t.namespace, obj).json);
    }
    if (method === 'POST') throw methodNotAllowed(method);
    const sub = t.subresource === 'status' ? 'status' : undefined;
    switch (method) {
      case 'PUT': {
        const decoded = this.service.decode(r, version, parseBody(raw, contentType, r), true);
        const old = this.service.store.get(resourceId(r), r.namespaced ? `${t.namespace ?? decoded.metadata?.namespace ?? ''}/${t.name}` : t.name)?.object;
        const obj = old === undefined ? decoded : withUpdateOwnership(this.service, r, version, old, decoded, manager, sub);
        return answer(200, this.service.update(r, t.namespace, t.name, obj, sub).json);
      }
      case 'PATCH':
        if (contentType === 'application/apply-patch+yaml') {
          const applied = serverSideApply(this.service, t, raw, q, sub);
          return answer(applied.code, applied.entry.json);
        }
        return answer(200, patchObject(this.service, t, contentType, raw, sub, manager).json);
      case 'DELETE': {
        if (sub !== undefined) throw methodNotAllowed(method);
        const parsed = raw.length > 0 ? (parseBody(raw, contentType, undefined) as DeleteOptions) : {};
        const opts = { ...deleteQueryOptions(q), ...(typeof parsed === 'object' && parsed !== null ? parsed : {}) };
        const { entry, deleted } = this.service.delete(r, t.namespace, t.name, opts);
        if (!deleted || this.service.strategies.for(r).deleteAnswer === 'object') return answer(200, entry.json);
        const uid = entry.object.metadata?.uid;
        return answer(200, {
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

  private async list(res: ServerResponse, t: ResolvedRoute, q: URLSearchParams, table: string | undefined): Promise<void> {
    const { r } = t;
    const sel = requestSelectors(r, q);
    const limit = optionalInt(q, 'limit');
    let page = listPage(this.service.store, {
      resourceId: resourceId(r),
      namespace: t.namespace,
      matches: sel.matches,
      selective: sel.selective,
      limit,
      continueToken: q.get('continue') ?? undefined,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
      pageResourceVersionZero: this.settings.pageResourceVersionZeroLists === true,
    });
    if (this.conversion !== undefined) page = { ...page, items: await this.conversion.entries(r, t.version, page.items) };
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
