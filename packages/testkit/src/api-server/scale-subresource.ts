import type { UnstructuredObject } from 'rxkube';
import type { ObjectService } from './object-service.js';
import type { StoredEntry } from './object-store.js';
import { jsonPatch, mergePatch } from './patch.js';
import type { ServedResource } from './resource-registry.js';
import { badRequest, conflict, invalid, methodNotAllowed, unsupportedMediaType } from './status-error.js';

import type { ScaleSpec, StrategyLookup } from './strategies/strategy.js';

export type { ScaleSpec } from './strategies/strategy.js';

interface CrdScaleVersion {
  readonly name?: string;
  readonly subresources?: { readonly scale?: Partial<ScaleSpec> };
}

/** The scale subresource a CRD object declares (on any served version), if any. */
export function scaleSpecFromCrd(crd: UnstructuredObject): ScaleSpec | undefined {
  const versions = ((crd['spec'] as { versions?: readonly CrdScaleVersion[] } | undefined)?.versions) ?? [];
  for (const v of versions) {
    const s = v.subresources?.scale;
    if (s?.specReplicasPath !== undefined && s.statusReplicasPath !== undefined) {
      return { specReplicasPath: s.specReplicasPath, statusReplicasPath: s.statusReplicasPath, ...(s.labelSelectorPath !== undefined ? { labelSelectorPath: s.labelSelectorPath } : {}) };
    }
  }
  return undefined;
}

/**
 * The `/scale` subresource of `r`, if it has one: built-in workloads (their strategy says where
 * replicas live), and custom resources whose CRD (looked up in `crdOf`) declares `subresources.scale`.
 */
export function scaleSpecOf(r: ServedResource, strategies: StrategyLookup, crdOf: (r: ServedResource) => UnstructuredObject | undefined): ScaleSpec | undefined {
  if (!r.custom) return strategies.for(r).scale;
  const crd = crdOf(r);
  return crd === undefined ? undefined : scaleSpecFromCrd(crd);
}

function segments(path: string): string[] {
  return path.split('.').filter((s) => s !== '');
}

function readPath(o: unknown, path: string): unknown {
  let cur = o;
  for (const s of segments(path)) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function writePath(o: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = segments(path);
  if (head === undefined) return o;
  if (rest.length === 0) return { ...o, [head]: value };
  const child = o[head];
  const base = typeof child === 'object' && child !== null && !Array.isArray(child) ? (child as Record<string, unknown>) : {};
  return { ...o, [head]: writePath(base, rest.join('.'), value) };
}

interface LabelSelectorLike {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** `metav1.FormatLabelSelector`: `a=b,c in (d,e),!f`. */
export function formatLabelSelector(sel: unknown): string {
  if (typeof sel === 'string') return sel;
  if (typeof sel !== 'object' || sel === null) return '';
  const s = sel as LabelSelectorLike;
  const parts: string[] = Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const vs = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${vs})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${vs})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.length === 0 ? '<none>' : parts.sort().join(',');
}

/** The `autoscaling/v1` Scale of a stored object. */
export function scaleOf(entry: StoredEntry, spec: ScaleSpec): UnstructuredObject {
  const o = entry.object;
  const m = o.metadata ?? {};
  const specReplicas = readPath(o, spec.specReplicasPath);
  const statusReplicas = readPath(o, spec.statusReplicasPath);
  const selector = spec.labelSelectorPath !== undefined ? readPath(o, spec.labelSelectorPath) : undefined;
  const formatted = selector === undefined ? undefined : formatLabelSelector(selector);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
      uid: m.uid,
      resourceVersion: String(entry.rv),
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, ...(formatted !== undefined && formatted !== '<none>' ? { selector: formatted } : {}) },
  };
}

/**
 * Serves `GET`, `PUT` and `PATCH` of `/scale`, as kube-apiserver: the body is an `autoscaling/v1`
 * Scale; a `resourceVersion` in it must match (409 otherwise); only `spec.replicas` is written.
 */
export function serveScale(
  service: ObjectService,
  r: ServedResource,
  spec: ScaleSpec,
  t: { readonly namespace: string | undefined; readonly name: string },
  method: string,
  body: unknown,
  contentType: string,
): UnstructuredObject {
  const current = service.get(r, t.namespace, t.name);
  if (method === 'GET') return scaleOf(current, spec);
  let wanted: unknown;
  if (method === 'PUT') wanted = body;
  else if (method === 'PATCH') {
    const scale = scaleOf(current, spec);
    if (contentType === 'application/json-patch+json') wanted = jsonPatch(scale, body);
    else if (contentType === 'application/merge-patch+json' || contentType === 'application/strategic-merge-patch+json') {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('json: cannot unmarshal into Go value: merge patch must be an object');
      wanted = mergePatch(scale, body);
    } else throw unsupportedMediaType(contentType);
  } else throw methodNotAllowed(method);
  if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) throw badRequest('the object provided is unrecognized (must be of type Scale)');
  const w = wanted as { kind?: unknown; metadata?: { name?: unknown; resourceVersion?: unknown }; spec?: { replicas?: unknown } };
  if (w.kind !== undefined && w.kind !== 'Scale') throw badRequest(`${String(w.kind)} in version "v1" cannot be handled as a Scale`);
  if (w.metadata?.name !== undefined && w.metadata.name !== t.name) {
    throw badRequest(`the name of the object (${String(w.metadata.name)}) does not match the name on the URL (${t.name})`);
  }
  const rv = w.metadata?.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== String(current.rv)) throw conflict({ plural: r.plural, group: r.group, name: t.name });
  const replicas = w.spec?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', 'autoscaling', t.name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` }]);
  }
  const next = writePath({ ...current.object }, spec.specReplicasPath, replicas) as UnstructuredObject;
  return scaleOf(service.writeUpdate(r, current, next), spec);
}

/** The discovery entry of `{plural}/scale`. */
export function scaleDiscoveryEntry(r: ServedResource): object {
  return { name: `${r.plural}/scale`, singularName: '', namespaced: r.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };
}
