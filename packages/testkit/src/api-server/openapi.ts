import { definitionFor, v3Schemas } from './openapi-schemas.js';
import { definitionsOf, openApiInfo } from './openapi-versions.js';
import type { ResourceRegistry } from './resource-registry.js';
import { apiVersionOf } from './resource-registry.js';

/** The `/openapi/v3` path of a group-version: `api/v1` or `apis/{group}/{version}`. */
function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/**
 * `/openapi/v3`: the index of per-group-version documents. The documents are minimal (see
 * {@link openApiV3Document}); the index hash changes when the set of resources changes.
 */
export function openApiV3Index(registry: ResourceRegistry): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const hash = registry.all().map((r) => `${r.group}/${r.plural}@${r.versions.join(',')}`).join(';').length.toString(16);
  for (const { group, versions } of registry.groups()) {
    for (const v of versions) paths[gvPath(group, v)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, v)}?hash=${hash}${v}` };
  }
  return { paths };
}

const PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
}));

/**
 * `/openapi/v3/{api/v1|apis/g/v}`: one PATCH (and POST / PUT) operation per resource, each tagged
 * with `x-kubernetes-group-version-kind` and declaring the `fieldValidation` query parameter, so
 * kubectl sees server-side field validation; the component schemas are those of the emulated
 * version's built-in kinds of the group/version (with their patch strategies) and the structural
 * schemas of its custom resources, for `kubectl explain`.
 */
export function openApiV3Document(registry: ResourceRegistry, path: string): object | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  const [kind, a, b] = parts;
  const group = kind === 'api' ? '' : (a ?? '');
  const version = kind === 'api' ? (a ?? '') : (b ?? '');
  if ((kind === 'api' && parts.length !== 2) || (kind === 'apis' && parts.length !== 3) || (kind !== 'api' && kind !== 'apis')) return undefined;
  const rs = registry.all().filter((r) => r.group === group && r.versions.includes(version));
  if (rs.length === 0) return undefined;
  const definitions = definitionsOf(registry.kubernetesVersion);
  const prefix = `/${gvPath(group, version)}`;
  const paths: Record<string, object> = {};
  const roots: string[] = [];
  const custom: Record<string, unknown> = {};
  for (const r of rs) {
    const crSchema = r.custom ? r.schemas?.[version] : undefined;
    if (crSchema !== undefined) {
      // kube-apiserver publishes a CRD version's schema as `<reversed group>.<version>.<Kind>`, with
      // apiVersion, kind and metadata added.
      custom[`${group.split('.').reverse().join('.')}.${version}.${r.kind}`] = {
        ...crSchema,
        type: 'object',
        properties: {
          apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
          kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
          metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
          ...(crSchema.properties ?? {}),
        },
        'x-kubernetes-group-version-kind': [{ group, version, kind: r.kind }],
      };
      roots.push('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    }
    const def = r.custom ? undefined : definitionFor(group, version, r.kind, definitions);
    if (def !== undefined) roots.push(def, ...[definitionFor(group, version, `${r.kind}List`, definitions)].filter((d): d is string => d !== undefined));
    const gvk = { group, version, kind: r.kind };
    const op = (verb: string) => ({ operationId: `${verb}${r.kind}`, parameters: PARAMS, 'x-kubernetes-action': verb, 'x-kubernetes-group-version-kind': gvk, responses: {} });
    const base = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
    paths[base] = { post: op('post'), get: op('list') };
    paths[`${base}/{name}`] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes (rxkube embedded)', version: apiVersionOf(group, version) }, paths, components: { schemas: { ...v3Schemas(roots, definitions), ...custom } } };
}

/** The `/openapi/v2` document. */
export interface OpenApiV2Doc {
  readonly swagger: string;
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Readonly<Record<string, object>>;
  readonly definitions: Readonly<Record<string, Record<string, unknown>>>;
}

/**
 * `/openapi/v2`: the emulated version's definitions, with one path per served resource (tagged with
 * its group/version/kind). Custom resources have no schema here.
 */
export function openApiV2Document(registry: ResourceRegistry): OpenApiV2Doc {
  const paths: Record<string, object> = {};
  for (const r of registry.all()) {
    for (const version of r.versions) {
      const prefix = `/${gvPath(r.group, version)}`;
      const gvk = { group: r.group, version, kind: r.kind };
      const base = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
      const op = (verb: string) => ({ operationId: `${verb}${r.kind}`, 'x-kubernetes-action': verb, 'x-kubernetes-group-version-kind': gvk, responses: {} });
      paths[base] = { get: op('list'), post: op('post') };
      paths[`${base}/{name}`] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
    }
  }
  return { swagger: '2.0', info: openApiInfo(registry.kubernetesVersion), paths, definitions: definitionsOf(registry.kubernetesVersion) };
}
