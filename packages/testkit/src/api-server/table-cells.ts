/** The cells of `meta.k8s.io/v1 Table` columns: the column shape, value readers and the common Name and Age columns. */

type Obj = Record<string, unknown>;

/** One column of a `meta.k8s.io/v1 Table`. */
export interface Column {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly format?: string;
  readonly priority?: number;
  readonly description?: string;
  readonly cell: (o: Record<string, unknown>, now: number) => string | number | boolean | null;
}

/** The value at a dotted path. */
export function at(o: unknown, path: string): unknown {
  let cur = o;
  for (const p of path.split('.')) cur = typeof cur === 'object' && cur !== null ? (cur as Obj)[p] : undefined;
  return cur;
}

/** The value at `path` as a cell string (`fallback` when absent or empty). */
export function str(o: unknown, path: string, fallback = '<none>'): string {
  const v = at(o, path);
  return v === undefined || v === null || v === '' ? fallback : typeof v === 'string' ? v : JSON.stringify(v);
}

/** The number at `path`, 0 when absent. */
export function num(o: unknown, path: string): number {
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

/** The Name column every table starts with. */
export const NAME: Column = { name: 'Name', type: 'string', format: 'name', cell: (o) => str(o, 'metadata.name', '') };

/** The Age column (from `metadata.creationTimestamp`). */
export const AGE: Column = {
  name: 'Age',
  type: 'string',
  cell: (o, now) => {
    const t = Date.parse(str(o, 'metadata.creationTimestamp', ''));
    return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
  },
};
