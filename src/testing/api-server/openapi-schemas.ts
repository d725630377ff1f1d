/**
 * The OpenAPI schemas of the emulated Kubernetes version (`data/kube-openapi.json`, the definitions
 * of its published swagger.json): served whole at `/openapi/v2` and, per group/version, as the
 * component schemas of the `/openapi/v3` documents (what `kubectl explain` reads).
 */
import data from './data/kube-openapi.json' with { type: 'json' };

type Schema = Record<string, unknown>;

const DEFINITIONS = data.definitions as unknown as Readonly<Record<string, Schema>>;

/** The `info` of the emulated version's document. */
export const OPENAPI_INFO = { title: 'Kubernetes', version: 'v1.20.2' } as const;

/** All v2 definitions. */
export function v2Definitions(): Readonly<Record<string, Schema>> {
  return DEFINITIONS;
}

let byGvk: Map<string, string> | undefined;

/** The definition name of a group/version/kind, if the emulated version has one. */
export function definitionFor(group: string, version: string, kind: string): string | undefined {
  if (byGvk === undefined) {
    byGvk = new Map();
    for (const [name, def] of Object.entries(DEFINITIONS)) {
      const gvks = (def['x-kubernetes-group-version-kind'] ?? []) as readonly { group: string; version: string; kind: string }[];
      for (const g of gvks) if (!byGvk.has(`${g.group}/${g.version}/${g.kind}`)) byGvk.set(`${g.group}/${g.version}/${g.kind}`, name);
    }
  }
  return byGvk.get(`${group}/${version}/${kind}`);
}

function refsOf(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) refsOf(x, out);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Schema)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith('#/definitions/')) out.add(x.slice('#/definitions/'.length));
      else refsOf(x, out);
    }
  }
}

function toV3(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toV3);
  if (v === null || typeof v !== 'object') return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v as Schema)) {
    out[k] = k === '$ref' && typeof x === 'string' ? x.replace('#/definitions/', '#/components/schemas/') : toV3(x);
  }
  return out;
}

const v3Cache = new Map<string, Record<string, unknown>>();

/** The v3 component schemas reachable from the given definitions (refs rewritten to `#/components/schemas/`). */
export function v3Schemas(roots: readonly string[]): Record<string, unknown> {
  const key = [...roots].sort().join(',');
  const hit = v3Cache.get(key);
  if (hit !== undefined) return hit;
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop() ?? '';
    if (seen.has(name) || DEFINITIONS[name] === undefined) continue;
    seen.add(name);
    const refs = new Set<string>();
    refsOf(DEFINITIONS[name], refs);
    todo.push(...refs);
  }
  const out: Record<string, unknown> = {};
  for (const name of [...seen].sort()) out[name] = toV3(DEFINITIONS[name]);
  if (v3Cache.size > 100) v3Cache.clear();
  v3Cache.set(key, out);
  return out;
}

/**
 * Drops the fields the emulated version's schema of `definition` does not have, in place, as
 * kube-apiserver's decoder drops unknown JSON fields of built-in kinds. Objects whose schema lists no
 * properties (RawExtension, FieldsV1, JSON, …) are kept whole; maps follow `additionalProperties`.
 */
export function pruneUnknownFields(value: unknown, definition: string): void {
  prune(value, DEFINITIONS[definition]);
}

function resolve(s: Schema | undefined): Schema | undefined {
  let cur = s;
  for (let i = 0; i < 8 && cur !== undefined && typeof cur['$ref'] === 'string'; i++) cur = DEFINITIONS[(cur['$ref'] as string).slice('#/definitions/'.length)];
  return cur;
}

function prune(v: unknown, schema: Schema | undefined): void {
  const s = resolve(schema);
  if (s === undefined || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    const items = s['items'] as Schema | undefined;
    if (items !== undefined) for (const x of v) prune(x, items);
    return;
  }
  const o = v as Record<string, unknown>;
  const props = s['properties'] as Record<string, Schema> | undefined;
  const additional = s['additionalProperties'];
  if (props !== undefined) {
    for (const k of Object.keys(o)) {
      const p = props[k];
      if (p === undefined) delete o[k];
      else prune(o[k], p);
    }
  } else if (additional !== null && typeof additional === 'object') {
    for (const x of Object.values(o)) prune(x, additional as Schema);
  }
}
