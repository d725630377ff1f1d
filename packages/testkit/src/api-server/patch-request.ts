import type { ObjectService } from './object-service.js';
import type { StoredEntry } from './object-store.js';
import { isTrue, parseJsonBody } from './http-io.js';
import type { UnstructuredObject } from 'rxkube';
import { CRD_RESOURCE_ID } from './crd-controller.js';
import { applyWithOwnership, builtinListTypes, parseApplyBody, recordUpdate, schemaListTypes, type ListTypes } from './server-side-apply.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { resourceId, type ServedResource } from './resource-registry.js';
import { definitionFor } from './openapi-schemas.js';
import { zeroValueFieldsOf, type ZeroValueNode } from './zero-value-fields.js';
import type { ResolvedRoute } from './route.js';
import { badRequest, customResourcePatchTypeUnsupported, failure, invalid, notFound, StatusError, unsupportedMediaType } from './status-error.js';

/** The list types of `r` at `version`: strategic merge keys for built-ins, the CRD schema's markers for custom resources. */
export function listTypesFor(service: ObjectService, r: ServedResource, version: string): ListTypes {
  if (!r.custom) return builtinListTypes;
  const crd = service.store.get(CRD_RESOURCE_ID, `${r.plural}.${r.group}`)?.object;
  const versions = ((crd?.['spec'] as { versions?: readonly { name?: string; schema?: { openAPIV3Schema?: unknown } }[] } | undefined)?.versions) ?? [];
  return schemaListTypes(versions.find((v) => v.name === version)?.schema?.openAPIV3Schema);
}

/**
 * The fields the Go zero value of `r` has (see zero-value-fields.ts): for a built-in kind, from its
 * 1.20 Go types; undefined for a custom resource (its empty object has no fields).
 */
export function zeroValueFieldsFor(r: ServedResource, version: string): ZeroValueNode | undefined {
  if (r.custom) return undefined;
  const def = definitionFor(r.group, version, r.kind);
  return def === undefined ? undefined : zeroValueFieldsOf(def);
}

/** The field manager of a non-apply write: `?fieldManager`, else the client's User-Agent up to the first `/`. */
export function managerOf(q: URLSearchParams, userAgent: string | undefined): string {
  const m = q.get('fieldManager');
  if (m !== null && m !== '') return m;
  const ua = (userAgent ?? '').split('/')[0] ?? '';
  return ua === '' ? 'unknown' : ua;
}

/**
 * `obj` with `metadata.managedFields` updated for a non-apply write by `manager` (see
 * {@link recordUpdate}), compared after the defaults set on decoding (which it then carries), as
 * kube-apiserver's field manager runs after them: the writer owns what defaulting set.
 */
export function withUpdateOwnership(service: ObjectService, r: ServedResource, version: string, old: UnstructuredObject | undefined, sent: UnstructuredObject, manager: string, sub?: 'status'): UnstructuredObject {
  // (An object stored without managedFields is not tracked: nothing to compare, no copy to make.)
  const tracked = old === undefined || (old.metadata?.managedFields?.length ?? 0) > 0;
  const obj = sub === undefined && tracked ? service.decodeDefaults(r, sent) : sent;
  const managedFields = recordUpdate(old, obj, manager, listTypesFor(service, r, version), sub, true, zeroValueFieldsFor(r, version));
  const metadata: Record<string, unknown> = { ...(obj.metadata ?? {}), managedFields };
  if (managedFields.length === 0) delete metadata['managedFields']; // (nobody owns a field: none, as kube-apiserver)
  return { ...obj, metadata };
}

/**
 * Server-side apply (`application/apply-patch+yaml`, YAML or JSON): creates the object when it
 * does not exist, else applies with field ownership (see server-side-apply.ts): 409 conflicts
 * unless `force=true`, fields this manager stopped applying removed, `managedFields` kept.
 */
export function serverSideApply(service: ObjectService, t: ResolvedRoute, raw: Buffer, q: URLSearchParams, sub: 'status' | undefined): { code: number; entry: StoredEntry } {
  const { r } = t;
  const name = t.name ?? '';
  const manager = q.get('fieldManager') ?? '';
  if (manager === '') {
    throw new StatusError(failure(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
      group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' } as never],
    }));
  }
  const body = parseApplyBody(raw);
  const obj = service.decode(r, t.version, body);
  if (obj.metadata?.name !== undefined && obj.metadata.name !== name) {
    throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`);
  }
  const types = listTypesFor(service, r, t.version);
  const force = isTrue(q.get('force'));
  const exists = service.store.get(resourceId(r), r.namespaced ? `${t.namespace ?? ''}/${name}` : name) !== undefined;
  if (!exists) {
    if (sub !== undefined) throw notFound({ plural: r.plural, group: r.group, name });
    const applied = applyWithOwnership(undefined, { ...obj, metadata: { ...(obj.metadata ?? {}), name } }, manager, force, types, undefined, true, zeroValueFieldsFor(r, t.version));
    return { code: 201, entry: service.create(r, t.namespace, applied) };
  }
  const current = service.get(r, t.namespace, name);
  const merged = service.decode(r, t.version, applyWithOwnership(current.object, obj, manager, force, types, sub, true, zeroValueFieldsFor(r, t.version)));
  const rv = obj.metadata?.resourceVersion;
  const entry = rv !== undefined && rv !== String(current.rv) ? service.update(r, t.namespace, name, merged, sub) : service.writeUpdate(r, current, merged, sub);
  return { code: 200, entry };
}

/** Applies a merge, JSON or strategic merge patch to one object (409 on a stale resourceVersion in it). */
export function patchObject(service: ObjectService, t: ResolvedRoute, contentType: string, raw: Buffer, sub: 'status' | undefined, manager?: string): StoredEntry {
const { r } = t;
  const name = t.name ?? '';
  const current = service.get(r, t.namespace, name);
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
      if (r.custom) throw customResourcePatchTypeUnsupported();
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('json: cannot unmarshal into Go value: strategic merge patch must be an object');
      patched = strategicMergePatch(current.object, body);
      break;
    default:
      throw r.custom ? customResourcePatchTypeUnsupported() : unsupportedMediaType(contentType);
  }
  const decoded = service.decode(r, t.version, patched);
  const obj = manager === undefined ? decoded : withUpdateOwnership(service, r, t.version, current.object, decoded, manager, sub);
  const meta = obj.metadata ?? {};
  if (meta.name !== undefined && meta.name !== name) {
    throw invalid(r.kind, r.group, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${String(meta.name)}": field is immutable` }]);
  }
  const rv = meta.resourceVersion;
  if (rv !== undefined && rv !== String(current.rv)) {
    return service.update(r, t.namespace, name, obj, sub);
  }
  return service.writeUpdate(r, current, obj, sub);
}
