import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../api/kube-object.js';
import type { Status } from '../../api/status.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.js';
import type { Faults } from './faults.js';
import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import { invalidListOptions, listJson, listPage } from './list-operation.js';
import type { ObjectService, DeleteOptions } from './object-service.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import type { RequestLog } from './request-log.js';
import { apiVersionOf, resourceId, type ResourceRegistry, type ResourceType } from './resource-registry.js';
import { openApiV3Document, openApiV3Index } from './openapi.js';
import { parseRoute, type Route } from './route.js';
import {
  badRequest, failure, invalid, methodNotAllowed, notFound, reasonForCode, StatusError, tooLarge, unauthorized,
  unknownPath, unsupportedMediaType,
} from './status-error.js';
import type { WatchHub } from './watch-hub.js';

/** Settings the handler needs from the server options. */
export interface HandlerSettings {
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  readonly bookmarkIntervalMs: number;
  readonly defaultWatchTimeoutSeconds: number | undefined;
}

type Resolved = Extract<Route, { type: 'resource' }> & { readonly r: ResourceType; readonly path: string };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sendJson(res: ServerResponse, code: number, body: string | object, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.status.code, err.status, { ...err.headers });
}

function isTrue(v: string | null): boolean {
  return v === 'true' || v === '1';
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > max) {
      req.resume();
      reject(tooLarge(max));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > max) {
        failed = true;
        reject(tooLarge(max));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('close', () => {
      // The client went away before the body was complete: nothing to answer.
      if (!req.complete && !failed) {
        failed = true;
        reject(new Error('request aborted'));
      }
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

function parseJsonBody(buf: Buffer, r: ResourceType | undefined): unknown {
  const text = buf.toString('utf8');
  if (text.trim() === '') throw badRequest(`the object provided is unrecognized (must be of type ${r?.kind ?? 'object'}): couldn't get version/kind; json parse error: unexpected end of JSON input`);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const snippet = text.length > 30 ? `${text.slice(0, 30)} ...` : text;
    throw badRequest(`the object provided is unrecognized (must be of type ${r?.kind ?? 'object'}): couldn't get version/kind; json parse error: ${(e as Error).message} (${snippet})`);
  }
}

function optionalInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid ${name}: ${v}`);
  return Number(v);
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

  private async serveResource(req: IncomingMessage, res: ServerResponse, t: Resolved, method: string, q: URLSearchParams, watch: boolean): Promise<void> {
    const { r } = t;
    if (t.namespace !== undefined && !r.namespaced) throw unknownPath();
    if (t.subresource !== undefined && !(t.subresource === 'status' && r.hasStatus)) throw unknownPath();
    const bodyType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if ((method === 'POST' || method === 'PUT') && bodyType !== '' && bodyType !== 'application/json' && bodyType !== '*/*') {
      req.resume();
      throw unsupportedMediaType(bodyType);
    }
    if (watch) return this.watch(res, t, q, method, t.name);
    if (method === 'GET') {
      if (t.name === undefined) return this.list(res, t, q);
      return sendJson(res, 200, this.service.get(r, t.namespace, t.name).json);
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
  private write(res: ServerResponse, t: Resolved, method: string, raw: Buffer, contentType: string, q: URLSearchParams): void {
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
        if (contentType === 'application/apply-patch+yaml') return this.apply(res, t, raw, q, sub);
        return sendJson(res, 200, this.patch(r, t, contentType, raw, sub).json);
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

  /**
   * Server-side apply, simplified: the applied configuration (JSON; YAML is not parsed) creates the
   * object when it does not exist, else is merged into it like a JSON merge patch. No field
   * ownership, no conflicts (`force` is accepted), fields dropped from the configuration stay.
   */
  private apply(res: ServerResponse, t: Resolved, raw: Buffer, q: URLSearchParams, sub: 'status' | undefined): void {
    const { r } = t;
    const name = t.name ?? '';
    if ((q.get('fieldManager') ?? '') === '') {
      throw new StatusError(failure(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
        group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' } as never],
      }));
    }
    const body = parseJsonBody(raw, r);
    const obj = this.service.decode(r, t.version, body);
    if (obj.metadata?.name !== undefined && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`);
    }
    const exists = this.service.store.get(resourceId(r), r.namespaced ? `${t.namespace ?? ''}/${name}` : name) !== undefined;
    if (!exists) {
      if (sub !== undefined) throw notFound({ plural: r.plural, group: r.group, name });
      const created = this.service.create(r, t.namespace, { ...obj, metadata: { ...(obj.metadata ?? {}), name } });
      return sendJson(res, 201, created.json);
    }
    const current = this.service.get(r, t.namespace, name);
    const merged = this.service.decode(r, t.version, mergePatch(current.object, body));
    const rv = merged.metadata?.resourceVersion;
    const entry = rv !== undefined && rv !== String(current.rv) ? this.service.update(r, t.namespace, name, merged, sub) : this.service.writeUpdate(r, current, merged, sub);
    return sendJson(res, 200, entry.json);
  }

  private patch(r: ResourceType, t: Resolved, contentType: string, raw: Buffer, sub: 'status' | undefined) {
    const name = t.name ?? '';
    const current = this.service.get(r, t.namespace, name);
    let patched: unknown;
    const body = parseJsonBody(raw, r);
    switch (contentType) {
      case 'application/merge-patch+json':
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('json: cannot unmarshal into Go value: merge patch must be an object');
        patched = mergePatch(current.object, body);
        break;
      case 'application/json-patch+json':
        patched = jsonPatch(current.object, body);
        break;
      case 'application/strategic-merge-patch+json':
        if (r.custom) throw unsupportedMediaType(contentType);
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('json: cannot unmarshal into Go value: strategic merge patch must be an object');
        patched = strategicMergePatch(current.object, body);
        break;
      default:
        throw unsupportedMediaType(contentType);
    }
    const obj = this.service.decode(r, t.version, patched);
    const meta = obj.metadata ?? {};
    if (meta.name !== undefined && meta.name !== name) {
      throw invalid(r.kind, r.group, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${String(meta.name)}": field is immutable` }]);
    }
    const rv = meta.resourceVersion;
    if (rv !== undefined && rv !== String(current.rv)) {
      return this.service.update(r, t.namespace, name, obj, sub);
    }
    return this.service.writeUpdate(r, current, obj, sub);
  }

  private selectors(r: ResourceType, q: URLSearchParams, name?: string): { matches: (o: KubeObject) => boolean; selective: boolean } {
    const labels = parseLabelSelector(q.get('labelSelector'));
    let fieldText = q.get('fieldSelector') ?? '';
    if (name !== undefined) fieldText = fieldText === '' ? `metadata.name=${name}` : `${fieldText},metadata.name=${name}`;
    let fields;
    try {
      fields = parseFieldSelector(fieldText, r.fields);
    } catch (e) {
      if (e instanceof StatusError && e.status.message?.startsWith('field label not supported') && Object.keys(r.fields).length === 2) {
        const f = e.status.message.slice('field label not supported: '.length);
        throw badRequest(`"${f}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      }
      throw e;
    }
    const matches = (o: KubeObject) => labels.matches(o.metadata?.labels) && fields.matches(o);
    return { matches, selective: labels.requirements.length > 0 || fields.terms.length > 0 };
  }

  private list(res: ServerResponse, t: Resolved, q: URLSearchParams): void {
    const { r } = t;
    const sel = this.selectors(r, q);
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
    sendJson(res, 200, listJson(r.kind, apiVersionOf(r.group, t.version), page));
  }

  private deleteCollection(res: ServerResponse, t: Resolved, q: URLSearchParams): void {
    const { r } = t;
    const sel = this.selectors(r, q);
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

  private watch(res: ServerResponse, t: Resolved, q: URLSearchParams, method: string, name?: string): void {
    const { r } = t;
    const store = this.service.store;
    const sel = this.selectors(r, q, name);
    const rvParam = q.get('resourceVersion') ?? '';
    const match = q.get('resourceVersionMatch') ?? '';
    const bookmarks = isTrue(q.get('allowWatchBookmarks'));
    const sendInitialParam = q.get('sendInitialEvents');
    const sendInitial = isTrue(sendInitialParam);
    if (sendInitialParam !== null) {
      if (match !== 'NotOlderThan') throw invalidListOptions('sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan');
      if (sendInitial && !bookmarks) throw invalidListOptions('allowWatchBookmarks', 'Forbidden: allowWatchBookmarks must be set to true when sendInitialEvents is set to true');
    } else if (match !== '') {
      throw invalidListOptions('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    }
    let fromRv: number | undefined;
    if (rvParam !== '' && rvParam !== '0') {
      if (!/^\d+$/.test(rvParam)) throw badRequest(`invalid resource version: ${rvParam}`);
      fromRv = Number(rvParam);
    }
    const timeoutParam = optionalInt(q, 'timeoutSeconds');
    const timeoutSeconds = timeoutParam ?? this.settings.defaultWatchTimeoutSeconds;
    const apiVersion = apiVersionOf(r.group, t.version);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const conn = this.hub.open(res, {
      filter: { resourceId: resourceId(r), namespace: t.namespace, matches: sel.matches },
      kind: r.kind,
      apiVersion,
      bookmarks,
      bookmarkIntervalMs: this.settings.bookmarkIntervalMs,
      timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
      maxEvents: this.faults.takeWatchLimit(method, t.path),
      ...(fromRv !== undefined && !sendInitial ? { afterRv: fromRv } : {}),
    });
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
}

function tooLargeStatus(asked: number, current: number): Status {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${asked}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' } as never],
    retryAfterSeconds: 1,
  });
}
