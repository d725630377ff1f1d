import type { Permission, PermissionVerb } from '../api/permission.js';
import { splitApiVersion } from '../api/resource.js';
import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/** One RBAC `PolicyRule`. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly PermissionVerb[];
}

/** The rules a manager needs: cluster-wide (a ClusterRole) and per namespace (a Role in each). */
export interface RbacRules {
  /** Rules on cluster-scoped resources, or on every namespace. */
  readonly cluster: readonly PolicyRule[];
  /** Rules per namespace, namespaces in name order. */
  readonly namespaces: ReadonlyMap<string, readonly PolicyRule[]>;
}

/** Plural and scope of a resource, e.g. through discovery. */
export type ResourceResolver = (ref: { readonly apiVersion: string; readonly kind: string }) => Promise<{ readonly plural: string; readonly namespaced: boolean }>;

/** A resource whose plural or scope is unknown and could not be resolved. */
export class RbacDerivationError extends RxkubeError {
  static override readonly code: string = 'MANAGER_RBAC_UNRESOLVED_RESOURCE';
  static override readonly layer: ErrorLayer = 'manager';
  override readonly name = 'RbacDerivationError';
}

const VERB_ORDER: readonly PermissionVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * Turns permissions into minimal RBAC rules. `defaultScope` is where permissions without a
 * namespace apply: a set of namespaces, or `null` for all (cluster-wide). Cluster-scoped resources
 * and `namespace: null` go to the cluster rules. Verbs are merged per resource; resources with
 * the same group and verbs share a rule. Resources without `plural` or `namespaced` are resolved
 * through `resolve`.
 */
export async function rbacRules(
  permissions: readonly Permission[],
  defaultScope: ReadonlySet<string> | null,
  resolve?: ResourceResolver,
): Promise<RbacRules> {
  // scope ('' = cluster) → "group\u0000resource" → verbs
  const byScope = new Map<string, Map<string, Set<PermissionVerb>>>();
  const add = (scope: string, group: string, resource: string, verbs: readonly PermissionVerb[]): void => {
    let rules = byScope.get(scope);
    if (rules === undefined) byScope.set(scope, (rules = new Map()));
    const key = `${group}\u0000${resource}`;
    let set = rules.get(key);
    if (set === undefined) rules.set(key, (set = new Set()));
    for (const v of verbs) set.add(v);
  };
  for (const p of permissions) {
    if (p.verbs.length === 0) continue;
    const { plural, namespaced } = await resolveResource(p.resource, resolve);
    const resource = p.subresource ? `${plural}/${p.subresource}` : plural;
    const group = splitApiVersion(p.resource.apiVersion).group;
    const namespace = p.namespace === undefined ? defaultScope : p.namespace === null ? null : new Set([p.namespace]);
    if (!namespaced || namespace === null || namespace.size === 0) add('', group, resource, p.verbs);
    else for (const ns of namespace) add(ns, group, resource, p.verbs);
  }
  const namespaces = new Map<string, readonly PolicyRule[]>();
  for (const scope of [...byScope.keys()].filter((s) => s !== '').sort()) namespaces.set(scope, toRules(byScope.get(scope) ?? new Map()));
  return { cluster: toRules(byScope.get('') ?? new Map()), namespaces };
}

async function resolveResource(
  ref: Permission['resource'],
  resolve: ResourceResolver | undefined,
): Promise<{ plural: string; namespaced: boolean }> {
  if (ref.plural !== undefined && ref.namespaced !== undefined) return { plural: ref.plural, namespaced: ref.namespaced };
  if (resolve === undefined) {
    throw new RbacDerivationError(`${ref.kind} (${ref.apiVersion}): give plural and namespaced, or a client to resolve them through discovery`);
  }
  try {
    const found = await resolve(ref);
    return { plural: ref.plural ?? found.plural, namespaced: ref.namespaced ?? found.namespaced };
  } catch (err) {
    throw new RbacDerivationError(`${ref.kind} (${ref.apiVersion}): cannot resolve its plural and scope: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function toRules(entries: ReadonlyMap<string, ReadonlySet<PermissionVerb>>): PolicyRule[] {
  // group + verbs → resources
  const merged = new Map<string, { group: string; verbs: PermissionVerb[]; resources: string[] }>();
  for (const [key, verbSet] of entries) {
    const [group = '', resource = ''] = key.split('\u0000');
    const verbs = VERB_ORDER.filter((v) => verbSet.has(v));
    const id = `${group}\u0000${verbs.join(',')}`;
    const entry = merged.get(id);
    if (entry === undefined) merged.set(id, { group, verbs, resources: [resource] });
    else entry.resources.push(resource);
  }
  return [...merged.values()]
    .map((m) => ({ apiGroups: [m.group], resources: [...m.resources].sort(), verbs: m.verbs }))
    .sort((a, b) => compare(`${a.apiGroups[0]} ${a.resources[0]}`, `${b.apiGroups[0]} ${b.resources[0]}`));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Options of {@link rbacManifest}. */
export interface RbacManifestOptions {
  /** Name of the ServiceAccount and of the roles and bindings. */
  readonly name: string;
  /** Namespace of the ServiceAccount. */
  readonly namespace: string;
  /** Include the ServiceAccount itself. Default true. */
  readonly serviceAccount?: boolean;
  /** Labels on every object. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * The rules as Kubernetes objects, in YAML (documents separated by `---`): the ServiceAccount, a
 * ClusterRole and ClusterRoleBinding for the cluster rules, and a Role and RoleBinding in each
 * namespace, all bound to the ServiceAccount. Deterministic: the same rules give the same text.
 *
 * ```ts
 * process.stdout.write(rbacManifest(await mgr.rbac(), { name: 'my-controller', namespace: 'ops' }));
 * ```
 */
export function rbacManifest(rules: RbacRules, options: RbacManifestOptions): string {
  const labels = options.labels === undefined || Object.keys(options.labels).length === 0 ? undefined : options.labels;
  const meta = (namespace?: string): Record<string, unknown> => ({
    name: options.name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(labels === undefined ? {} : { labels }),
  });
  const subject = { kind: 'ServiceAccount', name: options.name, namespace: options.namespace };
  const rbac = 'rbac.authorization.k8s.io/v1';
  const docs: Record<string, unknown>[] = [];
  if (options.serviceAccount ?? true) docs.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(options.namespace) });
  if (rules.cluster.length > 0) {
    docs.push({ apiVersion: rbac, kind: 'ClusterRole', metadata: meta(), rules: rules.cluster });
    docs.push({
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: meta(),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: options.name },
      subjects: [subject],
    });
  }
  for (const [namespace, nsRules] of rules.namespaces) {
    docs.push({ apiVersion: rbac, kind: 'Role', metadata: meta(namespace), rules: nsRules });
    docs.push({
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: meta(namespace),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: options.name },
      subjects: [subject],
    });
  }
  return docs.map((d) => toYaml(d, 0)).join('---\n');
}

/** A small YAML writer for plain objects, arrays and strings (all this manifest holds). */
function toYaml(value: unknown, indent: number): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    let out = '';
    for (const item of value) {
      if (isObject(item)) {
        const inner = toYaml(item, indent + 2);
        out += `${pad}- ${inner.slice(indent + 2)}`;
      } else out += `${pad}- ${scalar(item)}\n`;
    }
    return out;
  }
  let out = '';
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v) && v.every((x) => !isObject(x))) out += `${pad}${key}: [${v.map(scalar).join(', ')}]\n`;
    else if (Array.isArray(v)) out += `${pad}${key}:\n${toYaml(v, indent)}`;
    else if (isObject(v)) out += `${pad}${key}:\n${toYaml(v, indent + 2)}`;
    else out += `${pad}${key}: ${scalar(v)}\n`;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalar(v: unknown): string {
  const s = String(v);
  const plain = /^[A-Za-z_/][A-Za-z0-9._/-]*$/.test(s) && !/^(true|false|yes|no|on|off|null|y|n|~)$/i.test(s);
  return plain ? s : JSON.stringify(s);
}
