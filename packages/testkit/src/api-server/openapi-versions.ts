/**
 * The OpenAPI definitions and `info` of each emulated Kubernetes version. 1.20's are the data's
 * (`data/kube-openapi.json`); a later version's are derived from them: the definitions of group
 * versions it no longer serves are dropped, and a GA version promoted from a 1.20 beta
 * (e.g. batch/v1 CronJob from batch/v1beta1) gets copies of the beta's definitions under the GA
 * package name. Fields a later release added to those kinds are not in them; APIs new after 1.20
 * without a 1.20 beta have no definitions (see docs/embedded-api-server.md).
 */
import { definitionFor, v2Definitions, type Schema } from './openapi-schemas.js';
import { addedResourceVersions, releaseOf, servesDataVersion, type KubernetesVersion } from './kubernetes-version.js';

/** The `info` of the emulated version's OpenAPI v2 document. */
export function openApiInfo(v: KubernetesVersion): { readonly title: string; readonly version: string } {
  return { title: 'Kubernetes', version: releaseOf(v) };
}

/** `io.k8s.api.batch.v1beta1.CronJob` → `io.k8s.api.batch.v1beta1.` */
function packageOf(definition: string): string {
  return definition.slice(0, definition.lastIndexOf('.') + 1);
}

/** A deep copy with `$ref`s into package `from` pointed at package `to`, and GVK versions `like` → `version`. */
function renamed(v: unknown, from: string, to: string, like: string, version: string): unknown {
  if (Array.isArray(v)) return v.map((x) => renamed(x, from, to, like, version));
  if (v === null || typeof v !== 'object') return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v as Schema)) {
    if (k === '$ref' && typeof x === 'string' && x.startsWith(`#/definitions/${from}`)) out[k] = `#/definitions/${to}${x.slice(`#/definitions/${from}`.length)}`;
    else if (k === 'x-kubernetes-group-version-kind' && Array.isArray(x)) {
      out[k] = (x as { group: string; version: string; kind: string }[]).map((g) => (g.version === like ? { ...g, version } : g));
    } else out[k] = renamed(x, from, to, like, version);
  }
  return out;
}

/** The definitions of package `pkg` that `roots` reach through `$ref`s inside the package. */
function reachableInPackage(data: Readonly<Record<string, Schema>>, roots: readonly string[], pkg: string): Set<string> {
  const seen = new Set<string>();
  const todo = roots.filter((r) => data[r] !== undefined);
  const refs = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) refs(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Schema)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith(`#/definitions/${pkg}`)) todo.push(x.slice('#/definitions/'.length));
        else refs(x);
      }
    }
  };
  for (let name = todo.pop(); name !== undefined; name = todo.pop()) {
    if (seen.has(name) || data[name] === undefined) continue;
    seen.add(name);
    refs(data[name]);
  }
  return seen;
}

const cache = new Map<KubernetesVersion, Readonly<Record<string, Schema>>>();

/** The OpenAPI v2 definitions of the emulated version. */
export function definitionsOf(v: KubernetesVersion): Readonly<Record<string, Schema>> {
  const hit = cache.get(v);
  if (hit !== undefined) return hit;
  const data = v2Definitions();
  const out: Record<string, Schema> = {};
  // Packages whose group version is no longer served (its kinds' GVKs name them).
  const removed = new Set<string>();
  for (const [name, def] of Object.entries(data)) {
    const gvks = (def['x-kubernetes-group-version-kind'] ?? []) as readonly { group: string; version: string }[];
    if (name.startsWith('io.k8s.api.') && gvks.length > 0 && gvks.every((g) => !servesDataVersion(v, g.group, g.version, ''))) removed.add(packageOf(name));
  }
  for (const [name, def] of Object.entries(data)) if (!removed.has(packageOf(name))) out[name] = def;
  for (const a of addedResourceVersions(v)) {
    if (a.like === undefined) continue;
    const source = definitionFor(a.group, a.like, a.kind, data);
    if (source === undefined) continue;
    const from = packageOf(source);
    const to = `${from.slice(0, from.length - a.like.length - 1)}${a.version}.`;
    for (const name of reachableInPackage(data, [source, `${source}List`], from)) {
      const target = `${to}${name.slice(from.length)}`;
      const def = data[name];
      if (def !== undefined && out[target] === undefined) out[target] = renamed(def, from, to, a.like, a.version) as Schema;
    }
  }
  cache.set(v, out);
  return out;
}
