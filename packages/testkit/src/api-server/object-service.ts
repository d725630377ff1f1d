import { nowSeconds } from './wall-seconds.js';
import { randomUUID } from 'node:crypto';
import type { ObjectMeta, UnstructuredObject } from 'rxkube';
import { objectKey, type ObjectStore, type StoredEntry } from './object-store.js';
import { apiVersionOf, NAMESPACE_RESOURCE_ID, resourceId, type ServedResource } from './resource-registry.js';
import { namespaceTerminating, planDeletion, shouldDeleteDuringUpdate } from './deletion-lifecycle.js';
import { fieldTypeError } from './field-types.js';
import { tooDeep } from './http-io.js';
import { sameJson, shareUnchanged } from './json-equal.js';
import { MAX_BODY_DEPTH, tooDeepAt } from './json-depth.js';
import { alreadyExists, badRequest, conflict, failure, invalid, notFound, StatusError } from './status-error.js';
import type { StrategyLookup } from './strategies/strategy.js';
import type { AdmissionPoint, WebhookAdmissionPoint } from './admission/webhooks/admission-point.js';

/** `DeleteOptions` fields the server honours. */
export interface DeleteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
  readonly orphanDependents?: boolean;
}

/** The outcome of a delete: the object is gone, or it waits for finalizers. */
export interface DeleteResult {
  readonly entry: StoredEntry;
  readonly deleted: boolean;
}

type Mutable = Record<string, unknown>;

function metaOf(o: UnstructuredObject): ObjectMeta {
  return o.metadata ?? {};
}

const now = nowSeconds;

const NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RANDOM_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += RANDOM_ALPHABET[Math.floor(Math.random() * RANDOM_ALPHABET.length)];
  return s;
}

/** Everything but metadata and status, to decide whether `metadata.generation` bumps. */
function specPart(o: UnstructuredObject): Mutable {
  const rest: Mutable = { ...o };
  delete rest['metadata'];
  delete rest['status'];
  delete rest['apiVersion'];
  delete rest['kind'];
  return rest;
}

/**
 * The semantics of writes, shared by the HTTP handlers and the programmatic API: validation,
 * server-set metadata (uid, creationTimestamp, generateName, generation), optimistic concurrency,
 * the `/status` subresource, finalizers and delete preconditions.
 */
export class ObjectService {
  constructor(
    readonly store: ObjectStore,
    /** The strategy of each resource kind (create state, deletion rules, typed fields, subresources). */
    readonly strategies: StrategyLookup,
    private readonly options: {
      readonly requireNamespace: boolean;
      /** Admission on create (e.g. CRD validation and status); may throw a StatusError. */
      readonly admitCreate?: (r: ServedResource, obj: UnstructuredObject) => UnstructuredObject;
      /** Admission on update of the main resource (defaults, validation against the stored object); may throw. */
      readonly admitUpdate?: (r: ServedResource, obj: UnstructuredObject, old: UnstructuredObject) => UnstructuredObject;
      /** The defaults set when a body is decoded (built-in kinds in strict mode), on a copy; see {@link ObjectService.decodeDefaults}. */
      readonly decodeDefaults?: (r: ServedResource, obj: UnstructuredObject) => UnstructuredObject;
      /** Admission webhooks: mutating before the strategy prepares the object, validating after admission. */
      readonly webhooks?: WebhookAdmissionPoint;
      /** Validating admission of a `/status` write (the new state, the stored object); may throw. */
      readonly admitStatusUpdate?: (r: ServedResource, obj: UnstructuredObject, old: UnstructuredObject) => void;
      /** Validating admission of a delete (the stored object); may throw. */
      readonly admitDelete?: (r: ServedResource, old: UnstructuredObject) => void;
    },
  ) {}

  private dry = false;

  /**
   * `obj` (a decoded body, or a patch's result) with the defaults kube-apiserver sets on decoding
   * (a copy), or `obj` itself when there are none (custom resources, lenient mode): what a
   * non-apply write's field manager compares.
   */
  decodeDefaults(r: ServedResource, obj: UnstructuredObject): UnstructuredObject {
    return this.options.decodeDefaults?.(r, obj) ?? obj;
  }

  /**
   * Runs `fn` as a dry run (`?dryRun=All`): every check and default applies, nothing is stored,
   * no resourceVersion is consumed and no watch sees anything.
   */
  dryRun<T>(fn: () => T): T {
    this.dry = true;
    try {
      return fn();
    } finally {
      this.dry = false;
    }
  }

  private put(id: string, key: string, obj: UnstructuredObject): StoredEntry {
    if (!this.dry) return this.store.put(id, key, obj);
    const prev = this.store.get(id, key);
    const rv = prev?.rv ?? this.store.resourceVersion;
    const meta = { ...(obj.metadata ?? {}) };
    delete (meta as Mutable)['resourceVersion'];
    const object = { ...obj, metadata: prev !== undefined ? { ...meta, resourceVersion: String(rv) } : meta };
    return { key, object, json: JSON.stringify(object), rv };
  }

  private remove(id: string, key: string, last?: UnstructuredObject): StoredEntry | undefined {
    return this.dry ? this.store.get(id, key) : this.store.remove(id, key, last);
  }

  private target(r: ServedResource, name: string) {
    return { plural: r.plural, group: r.group, name };
  }

  /**
   * Checks body shape, kind and apiVersion as kube-apiserver's decoder does. `depthChecked`: the
   * body is a request body exactly as `parseBody` returned it (which already refused one nested
   * too deep), so its depth is not walked again.
   */
  decode(r: ServedResource, version: string, body: unknown, depthChecked = false): UnstructuredObject {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest(`the object provided is unrecognized (must be of type ${r.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type struct { APIVersion string; Kind string }`);
    }
    // A patch can nest deeper than the bodies it was made of.
    const deep = depthChecked ? undefined : tooDeepAt(body, MAX_BODY_DEPTH);
    if (deep !== undefined) throw tooDeep(r, deep, undefined);
    const o = body as Mutable;
    const expected = apiVersionOf(r.group, version);
    const kind = o['kind'];
    const apiVersion = o['apiVersion'];
    if (kind !== undefined && kind !== '' && kind !== r.kind) {
      throw badRequest(`${String(kind)} in version "${String(apiVersion ?? version)}" cannot be handled as a ${r.kind}: converting (${String(kind)}) to (${r.kind}): unknown conversion`);
    }
    if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== expected && !r.versions.some((v) => apiVersionOf(r.group, v) === apiVersion)) {
      throw badRequest(`${r.kind} in version "${String(apiVersion)}" cannot be handled as a ${r.kind}: no kind "${r.kind}" is registered for version "${String(apiVersion)}"`);
    }
    // Typed fields are checked on a copy in the body's key order (json-iterator's error path depends on it).
    const typedFields = this.strategies.for(r).typedFields;
    const checked: Mutable = { ...o };
    const wrongType = fieldTypeError(checked, r, version, typedFields);
    if (wrongType !== undefined) throw wrongType;
    // apiVersion and kind first, then the body's other fields in its order (one copy, no deletes).
    const decodedVersion = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : expected;
    const decoded: Mutable = { apiVersion: decodedVersion, kind: r.kind, ...checked };
    decoded['apiVersion'] = decodedVersion;
    decoded['kind'] = r.kind;
    return decoded as UnstructuredObject;
  }

  private checkNamespace(r: ServedResource, namespace: string | undefined, obj: UnstructuredObject): string | undefined {
    if (!r.namespaced) return undefined;
    const inBody = metaOf(obj).namespace;
    if (inBody !== undefined && inBody !== '' && namespace !== undefined && inBody !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const ns = namespace ?? inBody;
    if (ns === undefined || ns === '') throw badRequest('the server could not find the requested resource (namespace is required)');
    return ns;
  }

  private assertNamespaceExists(ns: string): void {
    if (this.options.requireNamespace && this.store.get(NAMESPACE_RESOURCE_ID, ns) === undefined) {
      throw notFound({ plural: 'namespaces', group: '', name: ns });
    }
  }

  private validateName(r: ServedResource, name: string | undefined): void {
    if (name === undefined || name === '') {
      throw invalid(r.kind, r.group, '', [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
    }
    if (name.length > 253 || !NAME_RE.test(name)) {
      throw invalid(r.kind, r.group, name, [{
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
        field: 'metadata.name',
      }]);
    }
  }

  /** Creates an object (POST). */
  create(r: ServedResource, namespace: string | undefined, sent: UnstructuredObject, opts: { skipNamespaceCheck?: boolean; keepStatus?: boolean } = {}): StoredEntry {
    const ns = this.checkNamespace(r, namespace, sent);
    const point: AdmissionPoint = { r, operation: 'CREATE' };
    const obj = this.options.webhooks?.mutate(point, sent) ?? sent;
    const meta = metaOf(obj);
    if (opts.keepStatus !== true && meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
      // kube-apiserver answers exactly this (a 500 without a reason).
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'resourceVersion should not be set on objects to be created', code: 500 });
    }
    let name = meta.name;
    if ((name === undefined || name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') {
      name = `${meta.generateName}${randomSuffix()}`;
    }
    // What the server sets; the same in every run of one admitted write (webhooks see what is stored).
    const system = this.options.webhooks?.systemFields(point, { name, uid: randomUUID(), creationTimestamp: now() }) ?? { name, uid: randomUUID(), creationTimestamp: now() };
    name = system.name;
    this.validateName(r, name);
    const key = objectKey(ns, name ?? '');
    if (ns !== undefined && !opts.skipNamespaceCheck) {
      this.assertNamespaceExists(ns);
      if (this.store.get(NAMESPACE_RESOURCE_ID, ns)?.object.metadata?.deletionTimestamp !== undefined) throw namespaceTerminating(ns, r, name ?? '');
    }
    if (this.store.get(resourceId(r), key) !== undefined) throw alreadyExists(this.target(r, name ?? ''));
    const newMeta: Mutable = { ...meta, name, uid: system.uid, creationTimestamp: system.creationTimestamp };
    if (ns !== undefined) newMeta['namespace'] = ns;
    else delete newMeta['namespace'];
    delete newMeta['resourceVersion'];
    delete newMeta['deletionTimestamp'];
    delete newMeta['deletionGracePeriodSeconds'];
    if (r.hasGeneration) newMeta['generation'] = 1;
    else delete newMeta['generation'];
    let stored: Mutable = { ...obj, metadata: newMeta };
    if (r.hasStatus && opts.keepStatus !== true) {
      // As kube-apiserver's strategies: status is not settable on create (only via /status).
      delete stored['status'];
    }
    this.strategies.for(r).prepareForCreate(stored, opts.keepStatus === true);
    if (this.options.admitCreate !== undefined) stored = { ...this.options.admitCreate(r, stored as UnstructuredObject) };
    this.options.webhooks?.validate(point, stored as UnstructuredObject);
    return this.put(resourceId(r), key, stored as UnstructuredObject);
  }

  /** The stored object or 404. */
  get(r: ServedResource, namespace: string | undefined, name: string): StoredEntry {
    const e = this.store.get(resourceId(r), objectKey(r.namespaced ? namespace : undefined, name));
    if (e === undefined) throw notFound(this.target(r, name));
    return e;
  }

  /**
   * Replaces an object (PUT), or only its status (`subresource === 'status'`). A resourceVersion
   * in the body must match the stored one (409 Conflict otherwise); none means unconditional.
   */
  update(r: ServedResource, namespace: string | undefined, name: string, obj: UnstructuredObject, subresource?: 'status'): StoredEntry {
    const ns = this.checkNamespace(r, namespace, obj);
    const meta = metaOf(obj);
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
    }
    const current = this.get(r, ns, name);
    const rv = meta.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== String(current.rv)) throw conflict(this.target(r, name));
    return this.writeUpdate(r, current, obj, subresource);
  }

  /**
   * Applies an already-merged new state (used by PUT and PATCH). `binding` writes the main
   * resource without update admission, as kube-apiserver's pod binding writes `spec.nodeName`
   * straight to storage (a pod update may not change it).
   */
  writeUpdate(r: ServedResource, current: StoredEntry, sent: UnstructuredObject, subresource?: 'status' | 'binding'): StoredEntry {
    const old = current.object;
    const point: AdmissionPoint = { r, operation: 'UPDATE', old, ...(subresource !== undefined ? { subresource } : {}) };
    const obj = subresource === 'binding' ? sent : (this.options.webhooks?.mutate(point, sent) ?? sent);
    const oldMeta = metaOf(old);
    let next: Mutable;
    if (subresource === 'status') {
      // Only status changes, and the field ownership the write recorded; everything else stays as stored.
      next = { ...old, status: obj['status'] };
      if (obj['status'] === undefined) delete next['status'];
      const managedFields = metaOf(obj)['managedFields'];
      if (managedFields !== undefined) next['metadata'] = { ...oldMeta, managedFields };
      this.options.admitStatusUpdate?.(r, next as UnstructuredObject, old);
      shareUnchanged(next, old);
    } else {
      const newMeta: Mutable = {
        ...metaOf(obj),
        name: oldMeta.name,
        uid: oldMeta.uid,
        creationTimestamp: oldMeta.creationTimestamp,
      };
      if (oldMeta.namespace !== undefined) newMeta['namespace'] = oldMeta.namespace;
      for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (oldMeta[f] !== undefined) newMeta[f] = oldMeta[f];
        else delete newMeta[f];
      }
      next = { ...obj, apiVersion: old.apiVersion, kind: old.kind, metadata: newMeta };
      if (r.hasStatus) {
        if (old['status'] !== undefined) next['status'] = old['status'];
        else delete next['status'];
      }
      if (this.options.admitUpdate !== undefined && subresource !== 'binding') {
        // Admission returns a copy: keep `newMeta` as its metadata (the generation is set on it below).
        next = { ...this.options.admitUpdate(r, next as UnstructuredObject, old) };
        Object.assign(newMeta, next['metadata']);
        next['metadata'] = newMeta;
      }
      // Fields left as stored are shared with the stored version now: the comparisons below
      // (did the spec change? is this a no-op?) then find them equal without walking them.
      shareUnchanged(next, old);
      if (r.hasGeneration && !sameJson(specPart(next as UnstructuredObject), specPart(old))) {
        newMeta['generation'] = (typeof oldMeta.generation === 'number' ? oldMeta.generation : 0) + 1;
      }
      const finalizers = newMeta['finalizers'];
      if (oldMeta.deletionTimestamp !== undefined) {
        const before = new Set(oldMeta.finalizers ?? []);
        if (Array.isArray(finalizers) && finalizers.some((f) => !before.has(f as string))) {
          throw invalid(r.kind, r.group, oldMeta.name ?? '', [{ field: 'metadata.finalizers', message: 'Forbidden: no new finalizers can be added if the object is being deleted' }]);
        }
      }
    }
    if (subresource !== 'binding') this.options.webhooks?.validate(point, next as UnstructuredObject);
    delete (next['metadata'] as Mutable)['resourceVersion'];
    const nextMeta = next['metadata'] as Mutable;
    const unchanged = { ...next, metadata: { ...nextMeta, resourceVersion: String(current.rv) } };
    // Compared with the stored object first (most updates differ early), then with its JSON, the stored truth.
    if (sameJson(unchanged, old) && JSON.stringify(unchanged) === current.json) {
      return current; // no-op update: kube-apiserver keeps the resourceVersion and sends no event
    }
    if (shouldDeleteDuringUpdate(this.strategies.for(r), old, next as UnstructuredObject)) {
      // The last finalizer went away from an object being deleted (or a namespace was finalized): it is deleted now.
      // One DELETED event, carrying the final state (as kube-apiserver: no MODIFIED first).
      return this.remove(resourceId(r), current.key, next as UnstructuredObject) ?? current;
    }
    return this.put(resourceId(r), current.key, next as UnstructuredObject);
  }

  /**
   * Deletes an object. With finalizers it only gets `deletionTimestamp` (and stays until the last
   * finalizer is removed). Preconditions (uid, resourceVersion) give 409 Conflict on mismatch.
   */
  delete(r: ServedResource, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
    const current = this.get(r, namespace, name);
    const meta = metaOf(current.object);
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== meta.uid) {
      throw new StatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${r.kind} "${name}": the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`, { name, ...(r.group !== '' ? { group: r.group } : {}), kind: r.kind }));
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== String(current.rv)) {
      throw new StatusError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${r.kind} "${name}": the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${current.rv}). The object might have been modified`, { name, ...(r.group !== '' ? { group: r.group } : {}), kind: r.kind }));
    }
    const point: AdmissionPoint = { r, operation: 'DELETE', old: current.object };
    this.options.webhooks?.mutate(point, undefined);
    this.options.webhooks?.validate(point, undefined);
    this.options.admitDelete?.(r, current.object);
    const id = resourceId(r);
    const plan = planDeletion(r, this.strategies.for(r), current.object, opts);
    if (plan.type === 'unchanged') return { entry: current, deleted: false };
    if (plan.type === 'mark') return { entry: this.put(id, current.key, plan.object), deleted: false };
    const removed = this.remove(id, current.key);
    return { entry: removed ?? current, deleted: true };
  }
}
