import type { IncomingMessage } from 'node:http';
import type { ObjectStore } from './object-store.js';
import type { AccessAttributes, Authorizer, UserInfo } from './access-review.js';
import { COMMON_FIELDS } from './field-selector.js';
import type { ServedResource } from './resource-registry.js';
import { failure, StatusError, unauthorized } from './status-error.js';

/** A user a bearer token stands for (RBAC on). */
export interface TokenUser {
  readonly name: string;
  readonly groups?: readonly string[];
}

/** Options of RBAC authorization (off by default). */
export interface RbacOptions {
  /** Bearer tokens and the users they authenticate. The server's `token` (if any) is an admin (`system:masters`). */
  readonly users: Readonly<Record<string, TokenUser>>;
}

interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

interface Subject {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

interface Binding {
  readonly metadata?: { readonly namespace?: string };
  readonly subjects?: readonly Subject[];
  readonly roleRef?: { readonly kind?: string; readonly name?: string };
}

/** The RBAC types (`rbac.authorization.k8s.io/v1`), served when the registry lacks them. */
export function rbacResources(): ServedResource[] {
  const base = { group: 'rbac.authorization.k8s.io', versions: ['v1'], shortNames: [], categories: [], custom: false, fields: COMMON_FIELDS, hasStatus: false, hasGeneration: false } as const;
  return [
    { ...base, plural: 'roles', singular: 'role', kind: 'Role', namespaced: true },
    { ...base, plural: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true },
    { ...base, plural: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false },
    { ...base, plural: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false },
  ];
}

const ADMIN: UserInfo = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/** Who sent a request: the admin token, a mapped token, else 401. */
export function authenticate(req: IncomingMessage, adminToken: string | undefined, rbac: RbacOptions | undefined): UserInfo {
  const auth = req.headers.authorization ?? '';
  const token = auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
  if (adminToken !== undefined && token === adminToken) return ADMIN;
  const u = token !== undefined ? rbac?.users[token] : undefined;
  if (u !== undefined) return { username: u.name, groups: [...(u.groups ?? []), 'system:authenticated'] };
  if (adminToken !== undefined || rbac !== undefined) throw unauthorized();
  return ADMIN;
}

const has = (list: readonly string[] | undefined, v: string): boolean => (list ?? []).includes('*') || (list ?? []).includes(v);

function ruleAllows(rule: PolicyRule, a: AccessAttributes): boolean {
  const ra = a.resourceAttributes;
  if (ra !== undefined) {
    const resource = ra.subresource ? `${ra.resource ?? ''}/${ra.subresource}` : (ra.resource ?? '');
    return has(rule.verbs, ra.verb ?? '') && has(rule.apiGroups, ra.group ?? '') && has(rule.resources, resource) &&
      ((rule.resourceNames ?? []).length === 0 || (ra.name !== undefined && rule.resourceNames?.includes(ra.name) === true));
  }
  const path = a.nonResourceAttributes?.path ?? '';
  return has(rule.verbs, a.nonResourceAttributes?.verb ?? '') &&
    (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

function subjectMatches(s: Subject, user: UserInfo, bindingNs: string | undefined): boolean {
  if (s.kind === 'User') return s.name === user.username;
  if (s.kind === 'Group') return s.name !== undefined && user.groups.includes(s.name);
  if (s.kind === 'ServiceAccount') return user.username === `system:serviceaccount:${s.namespace ?? bindingNs ?? ''}:${s.name ?? ''}`;
  return false;
}

/** Paths every authenticated user may GET (kube-apiserver's `system:discovery` and `system:public-info-viewer`). */
const DISCOVERY = ['/api', '/apis', '/openapi', '/version', '/healthz', '/livez', '/readyz'];

/** RBAC over the Roles, ClusterRoles and bindings in the store, as kube-apiserver's RBAC authorizer. */
export function rbacAuthorizer(store: ObjectStore): Authorizer {
  const rulesOf = (kind: string | undefined, name: string | undefined, ns: string | undefined): readonly PolicyRule[] => {
    const e = kind === 'ClusterRole' ? store.get('rbac.authorization.k8s.io/clusterroles', name ?? '') : store.get('rbac.authorization.k8s.io/roles', `${ns ?? ''}/${name ?? ''}`);
    return ((e?.object as { rules?: readonly PolicyRule[] } | undefined)?.rules) ?? [];
  };
  return (user, a) => {
    if (user.groups.includes('system:masters')) return { allowed: true };
    const path = a.nonResourceAttributes?.path;
    if (path !== undefined && a.nonResourceAttributes?.verb === 'get' && DISCOVERY.some((p) => path === p || path.startsWith(`${p}/`))) return { allowed: true };
    const ra = a.resourceAttributes;
    if (ra?.group === 'authorization.k8s.io' && ra.resource === 'selfsubjectaccessreviews') return { allowed: true };
    for (const e of store.snapshot('rbac.authorization.k8s.io/clusterrolebindings')) {
      const b = e.object as Binding;
      if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, undefined))) continue;
      if (rulesOf('ClusterRole', b.roleRef?.name, undefined).some((r) => ruleAllows(r, a))) return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "${e.key}"` };
    }
    const ns = ra?.namespace;
    if (ns !== undefined && ns !== '') {
      for (const e of store.snapshot('rbac.authorization.k8s.io/rolebindings')) {
        if (!e.key.startsWith(`${ns}/`)) continue;
        const b = e.object as Binding;
        if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, ns))) continue;
        if (rulesOf(b.roleRef?.kind, b.roleRef?.name, ns).some((r) => ruleAllows(r, a))) return { allowed: true, reason: `RBAC: allowed by RoleBinding "${e.key.slice(ns.length + 1)}/${ns}"` };
      }
    }
    return { allowed: false };
  };
}

/** 403 Forbidden with kube-apiserver's RBAC message. */
export function forbidden(user: UserInfo, a: AccessAttributes): StatusError {
  const ra = a.resourceAttributes;
  if (ra === undefined) {
    const path = a.nonResourceAttributes?.path ?? '';
    return new StatusError(failure(403, 'Forbidden', `forbidden: User "${user.username}" cannot ${a.nonResourceAttributes?.verb ?? 'get'} path "${path}"`, {}));
  }
  const resource = ra.subresource ? `${ra.resource ?? ''}/${ra.subresource}` : (ra.resource ?? '');
  const qualified = ra.group ? `${ra.resource ?? ''}.${ra.group}` : (ra.resource ?? '');
  const subject = ra.name ? `${qualified} "${ra.name}"` : qualified;
  const scope = ra.namespace ? `in the namespace "${ra.namespace}"` : 'at the cluster scope';
  return new StatusError(failure(403, 'Forbidden', `${subject} is forbidden: User "${user.username}" cannot ${ra.verb ?? ''} resource "${resource}" in API group "${ra.group ?? ''}" ${scope}`, {
    ...(ra.name ? { name: ra.name } : {}),
    ...(ra.group ? { group: ra.group } : {}),
    kind: ra.resource ?? '',
  }));
}

/** The attributes of a resource request (verb from the method, `watch`, and whether a name is given). */
export function requestAttributes(method: string, watch: boolean, t: { group: string; plural: string; namespace: string | undefined; name: string | undefined; subresource: string | undefined }): AccessAttributes {
  let verb: string;
  if (watch) verb = 'watch';
  else if (method === 'GET') verb = t.name === undefined ? 'list' : 'get';
  else if (method === 'POST') verb = 'create';
  else if (method === 'PUT') verb = 'update';
  else if (method === 'PATCH') verb = 'patch';
  else if (method === 'DELETE') verb = t.name === undefined ? 'deletecollection' : 'delete';
  else verb = method.toLowerCase();
  return {
    resourceAttributes: {
      verb, group: t.group, resource: t.plural,
      ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
      ...(t.name !== undefined ? { name: t.name } : {}),
      ...(t.subresource !== undefined ? { subresource: t.subresource } : {}),
    },
  };
}
