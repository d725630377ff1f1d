import { splitApiVersion, type Resource } from '../api/resource.js';

/** A resource type named by `{ apiVersion, kind }` (resolved through discovery) or given in full. */
export type ResourceRef = Resource | { readonly apiVersion: string; readonly kind: string };

/** True when `ref` already carries `plural` and `namespaced`, so no discovery is needed. */
export function isResolved(ref: ResourceRef): ref is Resource {
  const r = ref as Partial<Resource>;
  return typeof r.plural === 'string' && typeof r.namespaced === 'boolean';
}

/** Where a request goes: a namespace (or all), an object name, a subresource. */
export interface PathOptions {
  /** Namespace of a namespaced resource; absent means all namespaces (lists and watches only). */
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
}

/**
 * The URL path of a resource collection or object: `/api/v1/namespaces/ns/pods/name/status`,
 * `/apis/apps/v1/deployments`, … A namespace given for a cluster-scoped resource is ignored.
 */
export function resourcePath(resource: Resource, options: PathOptions = {}): string {
  const { group, version } = splitApiVersion(resource.apiVersion);
  let path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  if (resource.namespaced && options.namespace !== undefined && options.namespace !== '') {
    path += `/namespaces/${encodeURIComponent(options.namespace)}`;
  }
  path += `/${resource.plural}`;
  if (options.name !== undefined) {
    if (options.name === '') throw new TypeError(`${resource.kind}: object name must not be empty`);
    path += `/${encodeURIComponent(options.name)}`;
    if (options.subresource !== undefined) path += `/${options.subresource}`;
  }
  return path;
}
