import type { UnstructuredObject } from 'rxkube';
import { compareVersions, openApiResources } from './builtin-resources.js';
import type { PrinterColumn, SchemaNode } from './crd-schema.js';
import { COMMON_FIELDS, fieldPath, type FieldGetter } from './field-selector.js';
import type { ServedResource } from './served-resource.js';
import { DEFAULT_KUBERNETES_VERSION, isServedIn, type KubernetesVersion, type ServedLifetime } from './kubernetes-version.js';

export type { ServedResource } from './served-resource.js';

/** `group/plural` — the storage id of a resource (core group is ''). */
export function resourceId(r: Pick<ServedResource, 'group' | 'plural'>): string {
  return `${r.group}/${r.plural}`;
}

/** The storage id of namespaces (objects of namespaced kinds live in one). */
export const NAMESPACE_RESOURCE_ID = '/namespaces';

/** `v1` or `group/version`. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

type Spec = Partial<ServedResource> & Pick<ServedResource, 'plural' | 'kind' | 'namespaced'>;

function builtin(group: string, version: string, spec: Spec): ServedResource {
  return {
    group,
    versions: [version],
    singular: spec.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    hasStatus: false,
    hasGeneration: false,
    custom: false,
    ...spec,
    fields: { ...COMMON_FIELDS, ...(spec.fields ?? {}) },
  };
}

const podFields: Record<string, FieldGetter> = {
  'spec.nodeName': fieldPath('spec.nodeName'),
  'spec.restartPolicy': fieldPath('spec.restartPolicy'),
  'spec.schedulerName': fieldPath('spec.schedulerName'),
  'spec.serviceAccountName': fieldPath('spec.serviceAccountName'),
  'status.phase': fieldPath('status.phase'),
  'status.podIP': fieldPath('status.podIP'),
  'status.nominatedNodeName': fieldPath('status.nominatedNodeName'),
};

const eventFields: Record<string, FieldGetter> = Object.fromEntries(
  [
    'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
    'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath',
    'reason', 'reportingComponent', 'source', 'type',
  ].map((f) => [f, f === 'source' ? fieldPath('source.component') : fieldPath(f)]),
);

/**
 * The built-in resources: the hand-described ones below (field selectors, short names), then every
 * other resource of the emulated Kubernetes version's OpenAPI document (see builtin-resources.ts).
 */
export function builtinResources(kubernetesVersion: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): ServedResource[] {
  return withOpenApiResources(kubernetesVersion, [
    builtin('', 'v1', { plural: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], hasStatus: true, fields: { 'status.phase': fieldPath('status.phase') } }),
    builtin('', 'v1', { plural: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'], hasStatus: true, fields: podFields }),
    builtin('', 'v1', { plural: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] }),
    builtin('', 'v1', { plural: 'secrets', kind: 'Secret', namespaced: true, fields: { type: fieldPath('type') } }),
    builtin('', 'v1', { plural: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'], hasStatus: true }),
    builtin('', 'v1', { plural: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], hasStatus: true, fields: { 'spec.unschedulable': fieldPath('spec.unschedulable') } }),
    builtin('', 'v1', { plural: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], fields: eventFields }),
    builtin('', 'v1', { plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] }),
    builtin('apps', 'v1', { plural: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], hasStatus: true, hasGeneration: true }),
    builtin('apps', 'v1', { plural: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'], hasStatus: true, hasGeneration: true, fields: { 'status.replicas': fieldPath('status.replicas') } }),
    builtin('coordination.k8s.io', 'v1', { plural: 'leases', kind: 'Lease', namespaced: true }),
    builtin('apiextensions.k8s.io', 'v1', { plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], hasStatus: true, hasGeneration: true }),
  ]);
}

/** Adds the resources of the OpenAPI data not described by hand, and the other versions of those that are. */
function withOpenApiResources(kubernetesVersion: KubernetesVersion, listed: ServedResource[]): ServedResource[] {
  const fromData = openApiResources(kubernetesVersion);
  const byId = new Map(fromData.map((r) => [resourceId(r), r]));
  const known = new Set(listed.map(resourceId));
  const merged = listed.map((r) => {
    const d = byId.get(resourceId(r));
    return d === undefined ? r : { ...r, versions: [...new Set([...r.versions, ...d.versions])].sort(compareVersions), ...(d.verbs !== undefined ? { verbs: d.verbs } : {}) };
  });
  return [...merged, ...fromData.filter((r) => !known.has(resourceId(r)))];
}

interface CrdVersion {
  readonly name?: string;
  readonly served?: boolean;
  readonly storage?: boolean;
  readonly subresources?: { readonly status?: unknown };
  readonly schema?: { readonly openAPIV3Schema?: SchemaNode };
  readonly additionalPrinterColumns?: readonly PrinterColumn[];
}

interface CrdSpec {
  readonly group?: string;
  readonly scope?: string;
  readonly names?: {
    readonly plural?: string;
    readonly singular?: string;
    readonly kind?: string;
    readonly shortNames?: readonly string[];
    readonly categories?: readonly string[];
  };
  readonly versions?: readonly CrdVersion[];
}

/** Why a CRD object cannot be served, or undefined when it is valid. */
export function crdProblems(crd: UnstructuredObject): { field: string; message: string }[] {
  const spec = crd['spec'] as CrdSpec | undefined;
  const problems: { field: string; message: string }[] = [];
  const names = spec?.names;
  if (!spec?.group) problems.push({ field: 'spec.group', message: 'Required value' });
  if (!names?.plural) problems.push({ field: 'spec.names.plural', message: 'Required value' });
  if (!names?.kind) problems.push({ field: 'spec.names.kind', message: 'Required value' });
  if (spec?.scope !== 'Namespaced' && spec?.scope !== 'Cluster') {
    problems.push({ field: 'spec.scope', message: `Unsupported value: "${String(spec?.scope)}": supported values: "Cluster", "Namespaced"` });
  }
  const served = (spec?.versions ?? []).filter((v) => v.served !== false && v.name);
  if (served.length === 0) problems.push({ field: 'spec.versions', message: 'Invalid value: must have exactly one version marked as storage version' });
  if (spec?.group && names?.plural && crd.metadata?.name !== `${names.plural}.${spec.group}`) {
    problems.push({ field: 'metadata.name', message: `Invalid value: "${crd.metadata?.name ?? ''}": must be spec.names.plural+"."+spec.group` });
  }
  return problems;
}

/** The resource a (valid) CRD serves. */
export function resourceFromCrd(crd: UnstructuredObject): ServedResource {
  const spec = crd['spec'] as CrdSpec;
  const names = spec.names ?? {};
  const versions = (spec.versions ?? []).filter((v) => v.served !== false && v.name);
  const kind = names.kind ?? '';
  return {
    group: spec.group ?? '',
    versions: versions.map((v) => v.name ?? ''),
    plural: names.plural ?? '',
    singular: names.singular ?? kind.toLowerCase(),
    kind,
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    hasStatus: versions.some((v) => v.subresources?.status !== undefined),
    hasGeneration: true,
    custom: true,
    fields: COMMON_FIELDS,
    schemas: Object.fromEntries(versions.flatMap((v) => (v.schema?.openAPIV3Schema !== undefined ? [[v.name ?? '', v.schema.openAPIV3Schema]] : []))),
    printerColumns: Object.fromEntries(versions.flatMap((v) => (v.additionalPrinterColumns !== undefined ? [[v.name ?? '', v.additionalPrinterColumns]] : []))),
  };
}

/** Looks resources up by group, version and plural; CRDs add and remove entries at run time. */
export class ResourceRegistry {
  private readonly byId = new Map<string, ServedResource>();

  /**
   * `kubernetesVersion`: the emulated version (default {@link DEFAULT_KUBERNETES_VERSION}); the
   * built-in resources are those it serves unless `initial` is given.
   */
  constructor(
    initial?: readonly ServedResource[],
    readonly kubernetesVersion: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
  ) {
    for (const r of initial ?? builtinResources(kubernetesVersion)) this.add(r);
  }

  /**
   * Registers a built-in resource only when the emulated version serves it (e.g.
   * `addIfServed(r, { since: 30 })` for an API that 1.30 added); returns whether it did.
   */
  addIfServed(r: ServedResource, lifetime: ServedLifetime): boolean {
    if (!isServedIn(this.kubernetesVersion, lifetime)) return false;
    this.add(r);
    return true;
  }

  add(r: ServedResource): void {
    this.byId.set(resourceId(r), r);
  }

  remove(group: string, plural: string): void {
    this.byId.delete(`${group}/${plural}`);
  }

  /** The resource served at `group/version/plural`, if any. */
  find(group: string, version: string, plural: string): ServedResource | undefined {
    const r = this.byId.get(`${group}/${plural}`);
    return r !== undefined && r.versions.includes(version) ? r : undefined;
  }

  /** By group and plural, any version. */
  byGroupPlural(group: string, plural: string): ServedResource | undefined {
    return this.byId.get(`${group}/${plural}`);
  }

  /** By apiVersion and kind (used by the programmatic API). */
  byKind(apiVersion: string, kind: string): ServedResource | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    for (const r of this.byId.values()) if (r.group === group && r.kind === kind && r.versions.includes(version)) return r;
    return undefined;
  }

  all(): ServedResource[] {
    return [...this.byId.values()];
  }

  /** Groups with their versions, core ('') first, in registration order. */
  groups(): { group: string; versions: string[] }[] {
    const map = new Map<string, string[]>();
    for (const r of this.byId.values()) {
      const vs = map.get(r.group) ?? [];
      for (const v of r.versions) if (!vs.includes(v)) vs.push(v);
      map.set(r.group, vs);
    }
    return [...map.entries()].map(([group, versions]) => ({ group, versions }));
  }
}
