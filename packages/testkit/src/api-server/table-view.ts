import type { UnstructuredObject } from 'rxkube';
import { jsonPathValue, type PrinterColumn } from './crd-schema.js';
import type { ServedResource } from './resource-registry.js';
import { builtinStrategyFor } from './strategies/registry.js';
import { AGE, at, type Column, humanDuration, NAME, num, str } from './table-cells.js';
import { EXTRA_COLUMNS, MORE_COLUMNS } from './table-columns.js';

export { humanDuration };

type Obj = Record<string, unknown>;

const count = (path: string) => (o: Obj) => {
  const v = at(o, path);
  return typeof v === 'object' && v !== null ? Object.keys(v).length : 0;
};

const COLUMNS: Readonly<Record<string, readonly Column[]>> = {
  '/configmaps': [NAME, { name: 'Data', type: 'integer', cell: count('data') }, AGE],
  '/secrets': [NAME, { name: 'Type', type: 'string', cell: (o) => str(o, 'type', 'Opaque') }, { name: 'Data', type: 'integer', cell: count('data') }, AGE],
  '/nodes': [
    NAME,
    {
      name: 'Status',
      type: 'string',
      cell: (o) => {
        const conditions = at(o, 'status.conditions');
        const ready = Array.isArray(conditions) ? (conditions as Obj[]).find((c) => c['type'] === 'Ready') : undefined;
        const status = ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady';
        // As kube-apiserver's node printer: a cordoned node (spec.unschedulable) adds SchedulingDisabled.
        return at(o, 'spec.unschedulable') === true ? `${status},SchedulingDisabled` : status;
      },
    },
    AGE,
  ],
  'apps/deployments': [
    NAME,
    { name: 'Ready', type: 'string', cell: (o) => `${num(o, 'status.readyReplicas')}/${num(o, 'spec.replicas')}` },
    { name: 'Up-to-date', type: 'integer', cell: (o) => num(o, 'status.updatedReplicas') },
    { name: 'Available', type: 'integer', cell: (o) => num(o, 'status.availableReplicas') },
    AGE,
  ],
  'apps/replicasets': [
    NAME,
    { name: 'Desired', type: 'integer', cell: (o) => num(o, 'spec.replicas') },
    { name: 'Current', type: 'integer', cell: (o) => num(o, 'status.replicas') },
    { name: 'Ready', type: 'integer', cell: (o) => num(o, 'status.readyReplicas') },
    AGE,
  ],
  'coordination.k8s.io/leases': [NAME, { name: 'Holder', type: 'string', cell: (o) => str(o, 'spec.holderIdentity', '') }, AGE],
};

/** A custom printer column's cell: dates as ages, missing values as null (kubectl prints <none>). */
function printerCell(c: PrinterColumn, o: Obj, now: number): string | number | boolean | null {
  const v = jsonPathValue(o, c.jsonPath);
  if (v === undefined || v === null) return null;
  if (c.type === 'date' && typeof v === 'string') return Number.isNaN(Date.parse(v)) ? '<unknown>' : humanDuration(now - Date.parse(v));
  if (typeof v === 'object') return JSON.stringify(v);
  return v as string | number | boolean;
}

function columnsFor(r: ServedResource): readonly Column[] {
  const custom = r.printerColumns?.[r.versions[0] ?? ''];
  if (custom !== undefined && custom.length > 0) {
    return [NAME, ...custom.map((c): Column => ({ name: c.name, type: (c.type === 'date' ? 'date' : c.type) as Column['type'], ...(c.format !== undefined ? { format: c.format } : {}), priority: c.priority ?? 0, description: c.description ?? '', cell: (o, now) => printerCell(c, o, now) }))];
  }
  const id = `${r.group}/${r.plural}`;
  const base = builtinStrategyFor(r).columns ?? COLUMNS[id];
  if (base === undefined) {
    const more = MORE_COLUMNS[id];
    if (more !== undefined) return [NAME, ...more];
    return [NAME, AGE];
  }
  const extra = EXTRA_COLUMNS[id];
  if (extra === undefined) return base;
  return [...base.slice(0, -1), ...(extra.before ?? []), base[base.length - 1] ?? AGE, ...(extra.after ?? [])];
}

/** True when the Accept header asks for a server-side `Table` (as kubectl get does). */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept) && /g=meta\.k8s\.io/.test(accept);
}

function columnDefinitions(r: ServedResource): object[] {
  return columnsFor(r).map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 }));
}

function row(r: ServedResource, o: UnstructuredObject, includeObject: string, now: number): object {
  const cells = columnsFor(r).map((c) => c.cell(o as Obj, now));
  if (includeObject === 'None') return { cells };
  const object = includeObject === 'Object' ? o : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata ?? {} };
  return { cells, object };
}

/**
 * A `meta.k8s.io/v1 Table` of objects, as kube-apiserver answers `kubectl get`: per-resource
 * columns for the built-in types it serves, Name and Age otherwise. `includeObject` is
 * `Metadata` (default), `Object` or `None`.
 */
export function tableJson(
  r: ServedResource,
  objects: readonly UnstructuredObject[],
  meta: { readonly resourceVersion?: string; readonly continue?: string; readonly remainingItemCount?: number },
  includeObject: string,
  withColumns = true,
): string {
  const now = Date.now();
  return JSON.stringify({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    ...(withColumns ? { columnDefinitions: columnDefinitions(r) } : {}),
    rows: objects.map((o) => row(r, o, includeObject, now)),
  });
}
