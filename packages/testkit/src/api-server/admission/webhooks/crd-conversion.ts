/**
 * Conversion of custom resources between the versions of their CRD, as kube-apiserver 1.20's
 * converters: `strategy: None` sets the apiVersion; `strategy: Webhook` posts a ConversionReview
 * (`apiextensions.k8s.io/v1` or `v1beta1`, the first the CRD lists) with every object not yet in
 * the desired version and checks the answer (count, apiVersion, kind, name, namespace, uid; only
 * labels and annotations of the metadata may change). Objects are converted on their way out
 * (reads, lists, write answers, watch events) from the storage version they are kept in
 * (storage-version.ts converts writes through other versions).
 */
import { randomUUID } from 'node:crypto';
import type { ObjectStore, StoredEntry } from '../../object-store.js';
import { apiVersionOf, resourceId } from '../../resource-registry.js';
import type { ServedResource } from '../../served-resource.js';
import { StatusError } from '../../status-error.js';
import { postReview, WebhookCallFailure, webhookUrl, type WebhookCallSettings } from './webhook-client.js';
import type { WebhookClientConfig } from './webhook-config.js';

type Obj = Record<string, unknown>;

/** Storage id of CustomResourceDefinitions. */
const CRD_ID = resourceId({ group: 'apiextensions.k8s.io', plural: 'customresourcedefinitions' });

/** kube-apiserver sets no timeout of its own on conversion calls; the embedded server bounds them. */
const CONVERSION_TIMEOUT_SECONDS = 30;

/** How a CRD converts: `None`, or a webhook. */
export interface CrdConversion {
  readonly strategy: 'None' | 'Webhook';
  readonly clientConfig?: WebhookClientConfig;
  readonly reviewVersions: readonly string[];
}

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function clientConfigOf(c: Obj | undefined): WebhookClientConfig | undefined {
  if (c === undefined) return undefined;
  const svc = obj(c['service']);
  return {
    ...(typeof c['url'] === 'string' ? { url: c['url'] } : {}),
    ...(svc !== undefined ? { service: { namespace: String(svc['namespace'] ?? ''), name: String(svc['name'] ?? ''), port: typeof svc['port'] === 'number' ? svc['port'] : 443, ...(typeof svc['path'] === 'string' ? { path: svc['path'] } : {}) } } : {}),
    ...(typeof c['caBundle'] === 'string' && c['caBundle'] !== '' ? { caPem: Buffer.from(c['caBundle'], 'base64').toString('utf8') } : {}),
  };
}

/** The conversion of the CRD that serves `r` (v1 and v1beta1 CRD layouts). */
export function conversionOf(store: ObjectStore, r: ServedResource): CrdConversion {
  const crd = store.get(CRD_ID, `${r.plural}.${r.group}`)?.object as Obj | undefined;
  const conv = obj(obj(crd?.['spec'])?.['conversion']);
  if (conv === undefined || conv['strategy'] !== 'Webhook') return { strategy: 'None', reviewVersions: [] };
  const webhook = obj(conv['webhook']);
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const versions = webhook !== undefined ? strings(webhook['conversionReviewVersions']) : strings(conv['conversionReviewVersions']);
  const clientConfig = clientConfigOf(webhook !== undefined ? obj(webhook['clientConfig']) : obj(conv['webhookClientConfig']));
  return { strategy: 'Webhook', ...(clientConfig !== undefined ? { clientConfig } : {}), reviewVersions: versions.length > 0 ? versions : ['v1beta1'] };
}

/** Go's `GroupVersionKind.String()` of an object. */
function gvkOf(o: Obj | undefined): string {
  const av = typeof o?.['apiVersion'] === 'string' ? o['apiVersion'] : '';
  const slash = av.indexOf('/');
  return `${slash < 0 ? '' : av.slice(0, slash)}/${slash < 0 ? av : av.slice(slash + 1)}, Kind=${typeof o?.['kind'] === 'string' ? o['kind'] : ''}`;
}

function metaOf(o: Obj): Obj {
  return obj(o['metadata']) ?? {};
}

/** The converted object with the original metadata, but for labels and annotations (kube-apiserver's `restoreObjectMeta`). */
function restoreMeta(original: Obj, converted: Obj): Obj | string {
  const om = metaOf(original);
  const cm = obj(converted['metadata']);
  if (cm === undefined) return 'missing metadata in converted object';
  for (const f of ['kind'] as const) if (converted[f] !== original[f]) return `must have the same ${f}: ${String(original[f])} != ${String(converted[f])}`;
  for (const f of ['name', 'namespace', 'uid'] as const) {
    const a = om[f] ?? '';
    const b = cm[f] ?? '';
    if (a !== b) return `must have the same ${f === 'uid' ? 'UID' : f}: ${String(a)} != ${String(b)}`;
  }
  const meta: Obj = { ...om };
  for (const f of ['labels', 'annotations'] as const) {
    const v = obj(cm[f]);
    if (v === undefined) delete meta[f];
    else {
      const bad = Object.entries(v).find(([, x]) => typeof x !== 'string');
      if (bad !== undefined) return `metadata.${f}[${bad[0]}] must be a string, but is ${typeof bad[1]} in converted object`;
      meta[f] = v;
    }
  }
  return { ...converted, metadata: meta };
}

async function callWebhook(c: CrdConversion, objects: readonly Obj[], desired: string, settings: WebhookCallSettings): Promise<unknown[]> {
  const version = c.reviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
  if (version === undefined) throw new WebhookCallFailure('no supported conversion review versions');
  const uid = randomUUID();
  const body = {
    kind: 'ConversionReview',
    apiVersion: `apiextensions.k8s.io/${version}`,
    request: { uid, desiredAPIVersion: desired, objects },
    response: { uid: '', convertedObjects: null, result: { metadata: {} } },
  };
  const url = webhookUrl(c.clientConfig ?? {}, CONVERSION_TIMEOUT_SECONDS, settings);
  const answer = obj(await postReview(url, body, c.clientConfig?.caPem, CONVERSION_TIMEOUT_SECONDS, settings)) ?? {};
  if (version === 'v1' && (answer['apiVersion'] !== 'apiextensions.k8s.io/v1' || answer['kind'] !== 'ConversionReview')) {
    throw new WebhookCallFailure(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvkOf(answer)}`);
  }
  const res = obj(answer['response']);
  if (res === undefined) throw new WebhookCallFailure('no response provided');
  if (version === 'v1' && res['uid'] !== uid) throw new WebhookCallFailure(`expected response.uid="${uid}", got "${String(res['uid'] ?? '')}"`);
  const result = obj(res['result']) ?? {};
  if (result['status'] !== 'Success') {
    throw new WebhookCallFailure(typeof result['message'] === 'string' && result['message'] !== '' ? result['message'] : `response.result.status was '${String(result['status'] ?? '')}', not 'Success'`);
  }
  return Array.isArray(res['convertedObjects']) ? res['convertedObjects'] : [];
}

/** A conversion that failed: answered as kube-apiserver answers an error without a Status (500, no reason). */
function conversionError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

/**
 * `objects` in `desired` (`group/version`); those already in it are not sent. Throws the
 * StatusError to answer when the webhook fails.
 */
export async function convertObjects(c: CrdConversion, objects: readonly Obj[], desired: string, settings: WebhookCallSettings): Promise<Obj[]> {
  const todo = objects.filter((o) => o['apiVersion'] !== desired);
  if (todo.length === 0) return [...objects];
  if (c.strategy === 'None') return objects.map((o) => (o['apiVersion'] === desired ? o : { ...o, apiVersion: desired }));
  const from = gvkOf(todo[0]);
  let converted: unknown[];
  try {
    converted = await callWebhook(c, todo, desired, settings);
  } catch (e) {
    if (e instanceof WebhookCallFailure) throw conversionError(`conversion webhook for ${from} failed: ${e.reason}`);
    throw e;
  }
  if (converted.length !== todo.length) throw conversionError(`conversion webhook for ${from} returned ${converted.length} objects, expected ${todo.length}`);
  const out: Obj[] = [];
  let i = 0;
  for (const original of objects) {
    if (original['apiVersion'] === desired) {
      out.push(original);
      continue;
    }
    const index = i++;
    const got = obj(converted[index]);
    if (got === undefined) throw conversionError(`conversion webhook for ${from} returned invalid converted object at index ${index}: invalid type, expected=Unstructured, got=${typeof converted[index]}`);
    if (got['kind'] !== original['kind']) throw conversionError(`conversion webhook for ${from} returned invalid converted object at index ${index}: invalid kind (expected ${String(original['kind'])}, received ${String(got['kind'] ?? '')})`);
    if (got['apiVersion'] !== desired) throw conversionError(`conversion webhook for ${from} returned invalid converted object at index ${index}: invalid groupVersion (expected ${desired}, received ${String(got['apiVersion'] ?? '')})`);
    const restored = restoreMeta(original, got);
    if (typeof restored === 'string') throw conversionError(`conversion webhook for ${from} returned invalid metadata in object at index ${index}: ${restored}`);
    out.push(restored);
  }
  return out;
}

/** Most watch events waiting for conversion on one watch; past it the watch ends (the client watches again). */
export const MAX_PENDING_WATCH_CONVERSIONS = 1000;
/** Most objects in one ConversionReview of watch events. */
const MAX_WATCH_BATCH = 100;

/** How a watch renders its objects: synchronously (`renderObject`) or through the webhook (`renderAsync`). */
export interface WatchRendering {
  readonly renderObject?: (e: StoredEntry) => string;
  readonly renderAsync?: { readonly render: (e: StoredEntry) => Promise<string>; readonly maxPending: number };
}

/**
 * Converts the objects of watch events through the conversion webhook: the entries asked for in
 * one turn of the event loop go in one ConversionReview (at most {@link MAX_WATCH_BATCH} objects),
 * so a burst of events costs a few calls; each answer resolves in the order asked.
 */
class WatchBatcher {
  private batch: { entry: StoredEntry; resolve: (json: string) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly conversion: () => CrdConversion,
    private readonly desired: string,
    private readonly settings: WebhookCallSettings,
  ) {}

  render = (entry: StoredEntry): Promise<string> => {
    if (entry.object.apiVersion === this.desired) return Promise.resolve(entry.json);
    return new Promise((resolve, reject) => {
      this.batch.push({ entry, resolve, reject });
      if (this.batch.length >= MAX_WATCH_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  };

  private flush(): void {
    this.scheduled = false;
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    convertObjects(this.conversion(), batch.map((b) => b.entry.object as Obj), this.desired, this.settings).then(
      (converted) => batch.forEach((b, i) => b.resolve(JSON.stringify(converted[i] ?? b.entry.object))),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }
}

/** Converts custom resources to the version a request names, on their way out of the server. */
export class CrdConverter {
  constructor(
    private readonly store: ObjectStore,
    private readonly settings: WebhookCallSettings,
  ) {}

  private applies(r: ServedResource): boolean {
    return r.custom && r.versions.length > 1;
  }

  /** Stored entries as seen in `version` (the same entries when nothing needs converting). */
  async entries(r: ServedResource, version: string, entries: readonly StoredEntry[]): Promise<StoredEntry[]> {
    const desired = apiVersionOf(r.group, version);
    if (!this.applies(r) || entries.every((e) => e.object.apiVersion === desired)) return [...entries];
    const converted = await convertObjects(conversionOf(this.store, r), entries.map((e) => e.object as Obj), desired, this.settings);
    return entries.map((e, i) => {
      const o = converted[i] ?? (e.object as Obj);
      return o === e.object ? e : { ...e, object: o as StoredEntry['object'], json: JSON.stringify(o) };
    });
  }

  /**
   * How a watch in `version` renders its objects: nothing special for a resource with one
   * version; `strategy: None` sets the apiVersion; `strategy: Webhook` converts asynchronously,
   * in order, at most {@link MAX_PENDING_WATCH_CONVERSIONS} events waiting.
   */
  watchRendering(r: ServedResource, version: string): WatchRendering {
    if (!this.applies(r)) return {};
    const desired = apiVersionOf(r.group, version);
    if (conversionOf(this.store, r).strategy === 'None') {
      return { renderObject: (e) => (e.object.apiVersion === desired ? e.json : JSON.stringify({ ...e.object, apiVersion: desired })) };
    }
    const batcher = new WatchBatcher(() => conversionOf(this.store, r), desired, this.settings);
    return { renderAsync: { render: batcher.render, maxPending: MAX_PENDING_WATCH_CONVERSIONS } };
  }

  /** One answer body (an object as JSON text or value) in `version`; other kinds (Status) pass. */
  async body(r: ServedResource, version: string, body: string | object): Promise<string | object> {
    if (!this.applies(r)) return body;
    const o = (typeof body === 'string' ? JSON.parse(body) : body) as Obj;
    const desired = apiVersionOf(r.group, version);
    if (o['kind'] !== r.kind || o['apiVersion'] === desired) return body;
    const [converted] = await convertObjects(conversionOf(this.store, r), [o], desired, this.settings);
    return converted ?? body;
  }
}
