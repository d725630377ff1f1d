/**
 * Custom resources kept in their CRD's storage version, as kube-apiserver keeps them in etcd: a
 * write through another served version is turned into a write in the storage version before the
 * (synchronous) write path runs. POST and PUT bodies are converted; a merge or JSON patch is
 * applied to the stored object converted to the request's version (so the patch means what it
 * says in that version) and the result, converted back, is written as an update with the stored
 * resourceVersion (a write that got in meanwhile makes the caller prepare again). Reads, lists,
 * watches and write answers convert to the requested version on the way out (`CrdConverter`).
 */
import type { ObjectStore, StoredEntry } from '../../object-store.js';
import { jsonPatch, mergePatch } from '../../patch.js';
import { apiVersionOf, resourceId } from '../../resource-registry.js';
import type { ResolvedRoute } from '../../route.js';
import type { ServedResource } from '../../served-resource.js';
import { badRequest } from '../../status-error.js';
import { conversionOf, convertObjects } from './crd-conversion.js';
import type { WebhookCallSettings } from './webhook-client.js';

type Obj = Record<string, unknown>;

/** Storage id of CustomResourceDefinitions. */
const CRD_ID = resourceId({ group: 'apiextensions.k8s.io', plural: 'customresourcedefinitions' });

/** A write as the synchronous write path runs it. */
export interface StorageWrite {
  readonly t: ResolvedRoute;
  readonly method: string;
  readonly body: Buffer;
  readonly contentType: string;
  /**
   * A patch turned into an update at the stored resourceVersion: a 409 Conflict from it means
   * another write got in between, and the patch is prepared again on the new object.
   */
  readonly retryOnConflict: boolean;
}

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function parse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Turns writes through other versions of multi-version custom resources into storage-version writes. */
export class StorageVersionWrites {
  constructor(
    private readonly store: ObjectStore,
    private readonly settings: WebhookCallSettings,
  ) {}

  /** The version the CRD of `r` stores; undefined for built-ins and single-version resources. */
  storageVersion(r: ServedResource): string | undefined {
    if (!r.custom || r.versions.length < 2) return undefined;
    const crd = this.store.get(CRD_ID, `${r.plural}.${r.group}`)?.object as Obj | undefined;
    const versions = obj(crd?.['spec'])?.['versions'];
    if (!Array.isArray(versions)) return undefined;
    const stored = versions.map(obj).find((v) => v?.['storage'] === true)?.['name'];
    return typeof stored === 'string' ? stored : undefined;
  }

  private async convert(r: ServedResource, o: Obj, version: string): Promise<Obj> {
    const [converted] = await convertObjects(conversionOf(this.store, r), [o], apiVersionOf(r.group, version), this.settings);
    return converted ?? o;
  }

  /** `write` in the storage version (the same write when it already is, or nothing is to convert). */
  async prepare(write: StorageWrite, read: () => StoredEntry | undefined): Promise<StorageWrite> {
    const { t, method } = write;
    const storage = this.storageVersion(t.r);
    if (storage === undefined || storage === t.version) return write;
    const inStorage = { ...t, version: storage };
    const requested = apiVersionOf(t.r.group, t.version);
    if (method === 'POST' || method === 'PUT') {
      const body = obj(parse(write.body));
      // Not an object, or of another kind or version: the write path answers it as before.
      if (body === undefined || (body['apiVersion'] !== undefined && body['apiVersion'] !== requested) || (body['kind'] !== undefined && body['kind'] !== t.r.kind)) return write;
      const converted = await this.convert(t.r, { ...body, apiVersion: requested, kind: t.r.kind }, storage);
      return { ...write, t: inStorage, body: Buffer.from(JSON.stringify(converted)), contentType: 'application/json' };
    }
    if (method === 'PATCH' && (write.contentType === 'application/merge-patch+json' || write.contentType === 'application/json-patch+json')) {
      const current = read();
      if (current === undefined) return write; // 404 from the write path
      const patch = parse(write.body);
      if (patch === undefined) return write; // 400 from the write path
      const old = await this.convert(t.r, current.object as Obj, t.version);
      let patched: unknown;
      if (write.contentType === 'application/merge-patch+json') {
        if (obj(patch) === undefined) return write;
        patched = mergePatch(old, patch);
      } else {
        patched = jsonPatch(old, patch);
      }
      const p = obj(patched);
      if (p === undefined) throw badRequest(`the patch of ${t.r.kind} "${t.name ?? ''}" in ${requested} did not leave an object`);
      if (p['apiVersion'] !== requested || p['kind'] !== t.r.kind) return write; // the write path refuses it
      const meta = obj(p['metadata']) ?? {};
      // The stored resourceVersion, unless the patch names one (then it is the client's precondition).
      const precondition = Array.isArray(patch)
        ? patch.some((op) => obj(op)?.['path'] === '/metadata/resourceVersion')
        : obj(obj(patch)?.['metadata'])?.['resourceVersion'] !== undefined;
      const converted = await this.convert(t.r, { ...p, metadata: { ...meta, resourceVersion: meta['resourceVersion'] ?? String(current.rv) } }, storage);
      return { t: inStorage, method: 'PUT', body: Buffer.from(JSON.stringify(converted)), contentType: 'application/json', retryOnConflict: !precondition };
    }
    return write;
  }
}
