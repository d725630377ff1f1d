import type { UnstructuredObject } from 'rxkube';
import type { DeleteOptions } from './object-service.js';
import type { StoredEntry } from './object-store.js';
import type { ServedResource } from './resource-registry.js';
import { conflict } from './status-error.js';
import type { ObjectWrites } from './strategies/strategy.js';

/**
 * `PUT /api/v1/namespaces/{name}/finalize`: writes only `spec.finalizers` (the namespace
 * controller removes `kubernetes` once the content is gone; a namespace being deleted whose
 * finalizers are then all gone is removed).
 */
export function finalizeNamespace(service: ObjectWrites, r: ServedResource, name: string, body: UnstructuredObject): StoredEntry {
  const current = service.get(r, undefined, name);
  const rv = body.metadata?.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== String(current.rv)) throw conflict({ plural: r.plural, group: r.group, name });
  const finalizers = (body['spec'] as { finalizers?: readonly string[] } | undefined)?.finalizers ?? [];
  const spec = { ...((current.object['spec'] as object | undefined) ?? {}), finalizers };
  return service.writeUpdate(r, current, { ...current.object, spec });
}

/** `DeleteOptions` given as query parameters (`?propagationPolicy=Foreground&gracePeriodSeconds=0`). */
export function deleteQueryOptions(q: URLSearchParams): DeleteOptions {
  const policy = q.get('propagationPolicy');
  const grace = q.get('gracePeriodSeconds');
  const orphan = q.get('orphanDependents');
  return {
    ...(policy !== null ? { propagationPolicy: policy } : {}),
    ...(grace !== null && /^-?\d+$/.test(grace) ? { gracePeriodSeconds: Number(grace) } : {}),
    ...(orphan !== null ? { orphanDependents: orphan === 'true' } : {}),
  };
}
