import { GROUP_ORDER } from './builtin-resources.js';
import type { ResourceRegistry, ServedResource } from './resource-registry.js';
import { apiVersionOf } from './resource-registry.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** `/api`. */
export function apiVersions(): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
  };
}

function groupEntry(group: string, versions: readonly string[]): object {
  const vs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

/** Built-in groups in kube-apiserver's order (kubectl resolves a resource served by two groups, e.g. ingresses, by it), then the others. */
function groupRank(group: string, registered: number): number {
  const i = GROUP_ORDER.indexOf(group);
  return i >= 0 ? i : GROUP_ORDER.length + registered;
}

/** `/apis`. */
export function apiGroupList(registry: ResourceRegistry): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.group !== '')
      .map((g, i) => ({ g, rank: groupRank(g.group, i) }))
      .sort((a, b) => a.rank - b.rank)
      .map(({ g }) => groupEntry(g.group, g.versions)),
  };
}

/** `/apis/{group}`, or undefined when the group is not served. */
export function apiGroup(registry: ResourceRegistry, group: string): object | undefined {
  const g = registry.groups().find((x) => x.group === group && group !== '');
  return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g.group, g.versions) };
}

function entries(r: ServedResource): object[] {
  const main = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs ?? ALL_VERBS,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length > 0 ? { categories: r.categories } : {}),
  };
  const status = r.hasStatus
    ? [{ name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] }]
    : [];
  return [main, ...status];
}

/**
 * `/api/v1` or `/apis/{group}/{version}`, or undefined when not served. `extra` adds entries of
 * other subresources (e.g. `/scale`) after a resource's own.
 */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string, extra: (r: ServedResource) => object[] = () => []): object | undefined {
  const rs = registry.all().filter((r) => r.group === group && r.versions.includes(version));
  if (rs.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(group, version),
    resources: rs.flatMap((r) => [...entries(r), ...extra(r)]).sort((a, b) => ((a as { name: string }).name < (b as { name: string }).name ? -1 : 1)),
  };
}
