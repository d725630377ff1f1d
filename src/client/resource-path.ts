import { splitApiVersion, type ResolvedResourceType } from '../api/resource.js';

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
export function resourcePath(resource: ResolvedResourceType, options: PathOptions = {}): string {
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
