import type { UnstructuredObject } from 'rxkube';
import { jsonPathValue, type PrinterColumn } from './crd-schema.js';
import type { ServedResource } from './resource-registry.js';
import { EXTRA_COLUMNS, MORE_COLUMNS } from './table-columns.js';

/** One column of a `meta.k8s.io/v1 Table`. */
interface Column {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly format?: string;
  readonly priority?: number;
  readonly description?: string;
  readonly cell: (o: Record<string, unknown>, now: number) => string | number | boolean | null;
}

type Obj = Record<string, unknown>;

function at(o: unknown, path: string): unknown {
  let cur = o;
  for (const p of path.split('.')) cur = typeof cur === 'object' && cur !== null ? (cur as Obj)[p] : undefined;
  return cur;
}

function str(o: unknown, path: string, fallback = '<none>'): string {
  const v = at(o, path);
  return v === undefined || v === null || v === '' ? fallback : typeof v === 'string' ? v : JSON.stringify(v);
}

function num(o: unknown, path: string): number {
  const v = at(o, path);
  return typeof v === 'number' ? v : 0;
}

/** kube's short human duration: 45s, 3m20s, 15m, 5h10m, 2d3h, 90d. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  return `${d}d`;
}

const NAME: Column = { name: 'Name', type: 'string', format: 'name', cell: (o) => str(o, 'metadata.name', '') };
const AGE: Column = {
  name: 'Age',
  type: 'string',
  cell: (o, now) => {
    const t = Date.parse(str(o, 'metadata.creationTimestamp', ''));
    return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
  },
};
const count = (path: string) => (o: Obj) => {
  const v = at(o, path);
  return typeof v === 'object' && v !== null ? Object.keys(v).length : 0;
};

function podReady(o: Obj): string {
  const containers = at(o, 'spec.containers');
  const statuses = at(o, 'status.containerStatuses');
  const total = Array.isArray(containers) ? containers.length : 0;
  const ready = Array.isArray(statuses) ? statuses.filter((c) => (c as Obj)['ready'] === true).length : 0;
  return `${ready}/${total}`;
}

function podRestarts(o: Obj): number {
  const statuses = at(o, 'status.containerStatuses');
  return Array.isArray(statuses) ? statuses.reduce((a: number, c) => a + num(c, 'restartCount'), 0) : 0;
}

const COLUMNS: Readonly<Record<string, readonly Column[]>> = {
  '/pods': [
    NAME,
    { name: 'Ready', type: 'string', cell: podReady },
    { name: 'Status', type: 'string', cell: (o) => (at(o, 'metadata.deletionTimestamp') !== undefined ? 'Terminating' : str(o, 'status.reason', str(o, 'status.phase', 'Unknown'))) },
    { name: 'Restarts', type: 'integer', cell: podRestarts },
    AGE,
  ],
  '/namespaces': [NAME, { name: 'Status', type: 'string', cell: (o) => str(o, 'status.phase', '') }, AGE],
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
        return ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady';
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
  const base = COLUMNS[id];
  if (base === undefined) {
    const more = MORE_COLUMNS[id];
    // Events list with Last Seen first and the name as a wide column, as kubectl shows them.
    if (more !== undefined) return id === '/events' ? more : [NAME, ...more];
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
