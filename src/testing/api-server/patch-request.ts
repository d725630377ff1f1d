import type { ObjectService } from './object-service.js';
import type { StoredEntry } from './object-store.js';
import { parseJsonBody } from './http-io.js';
import { conflictMessage, fieldPathText, planApply } from './managed-fields.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { apiVersionOf, resourceId } from './resource-registry.js';
import type { ResolvedRoute } from './route.js';
import { badRequest, conflict, failure, invalid, notFound, StatusError, unsupportedMediaType } from './status-error.js';

/**
 * Server-side apply with field ownership (see `managed-fields.ts`): the applied configuration
 * (JSON; YAML is not parsed) creates the object when it does not exist; otherwise it is merged
 * in, fields the manager applied before and leaves out now are removed, and changing fields other
 * managers own is a 409 Conflict unless `force=true`.
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
  const force = q.get('force');
  if (force !== null && force !== 'true' && force !== 'false') throw badRequest(`strconv.ParseBool: parsing "${force}": invalid syntax`);
  const body = parseJsonBody(raw, r);
  const obj = service.decode(r, t.version, body);
  if (obj.metadata?.name !== undefined && obj.metadata.name !== name) {
    throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`);
  }
  const options = { manager, force: force === 'true', apiVersion: apiVersionOf(r.group, t.version), hasStatus: r.hasStatus, subresource: sub };
  const exists = service.store.get(resourceId(r), r.namespaced ? `${t.namespace ?? ''}/${name}` : name) !== undefined;
  if (!exists) {
    if (sub !== undefined) throw notFound({ plural: r.plural, group: r.group, name });
    const plan = planApply(undefined, obj, options);
    if ('conflicts' in plan) throw new Error('unreachable: no conflicts on create');
    const created = service.withAppliedFields(plan.managedFields, () =>
      service.create(r, t.namespace, { ...plan.object, metadata: { ...(plan.object.metadata ?? {}), name } }),
    );
    return { code: 201, entry: created };
  }
  const current = service.get(r, t.namespace, name);
  const rv = obj.metadata?.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== String(current.rv)) throw conflict({ plural: r.plural, group: r.group, name });
  const plan = planApply(current.object, obj, options);
  if ('conflicts' in plan) {
    throw new StatusError(failure(409, 'Conflict', conflictMessage(plan.conflicts), {
      causes: plan.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with "${c.manager}"`, field: fieldPathText(c.path) })),
    }));
  }
  const merged = service.decode(r, t.version, plan.object);
  const entry = service.withAppliedFields(plan.managedFields, () => service.writeUpdate(r, current, merged, sub));
  return { code: 200, entry };
}

/** Applies a merge, JSON or strategic merge patch to one object (409 on a stale resourceVersion in it). */
export function patchObject(service: ObjectService, t: ResolvedRoute, contentType: string, raw: Buffer, sub: 'status' | undefined): StoredEntry {
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
      if (r.custom) throw unsupportedMediaType(contentType);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('json: cannot unmarshal into Go value: strategic merge patch must be an object');
      patched = strategicMergePatch(current.object, body);
      break;
    default:
      throw unsupportedMediaType(contentType);
  }
  const obj = service.decode(r, t.version, patched);
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
