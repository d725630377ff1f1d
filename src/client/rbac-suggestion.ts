import type { DeniedRequest } from './denied-request.js';

/** One RBAC `PolicyRule`: resources in API groups, or non-resource URLs, and the verbs on them. */
export interface RbacPolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs: readonly string[];
}

/** Whom a binding grants the role to: a ServiceAccount, or a user by name. */
export type RbacSubject =
  | { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string }
  | { readonly kind: 'User'; readonly name: string };

/**
 * The RBAC that would have allowed a refused request: `rule` in a Role of `namespace` bound by a
 * RoleBinding (a namespaced request), or in a ClusterRole bound by a ClusterRoleBinding (a request
 * at the cluster scope: a list or watch over all namespaces, a cluster-scoped resource, a
 * non-resource URL). `yaml` is the rule as a ready-to-paste item of the role's `rules:`.
 */
export interface RbacSuggestion {
  readonly role: 'Role' | 'ClusterRole';
  readonly binding: 'RoleBinding' | 'ClusterRoleBinding';
  /** The Role's namespace; absent for a ClusterRole. */
  readonly namespace?: string;
  readonly rule: RbacPolicyRule;
  /** The subject to bind; absent when the request was anonymous. */
  readonly subject?: RbacSubject;
  /** `rule` as YAML: `- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["list"]`. */
  readonly yaml: string;
}

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The subject a user name stands for: `system:serviceaccount:ns:sa` is a ServiceAccount. */
export function subjectOf(user: string): RbacSubject {
  const sa = SERVICE_ACCOUNT.exec(user);
  return sa === null ? { kind: 'User', name: user } : { kind: 'ServiceAccount', namespace: sa[1] ?? '', name: sa[2] ?? '' };
}

/** `ServiceAccount ns/sa` or `User "alice"`. */
export function describeSubject(subject: RbacSubject): string {
  return subject.kind === 'ServiceAccount' ? `ServiceAccount ${subject.namespace}/${subject.name}` : `User ${JSON.stringify(subject.name)}`;
}

const list = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;

function ruleYaml(rule: RbacPolicyRule): string {
  const lines: string[] = [];
  if (rule.nonResourceURLs !== undefined) lines.push(`nonResourceURLs: ${list(rule.nonResourceURLs)}`);
  if (rule.apiGroups !== undefined) lines.push(`apiGroups: ${list(rule.apiGroups)}`);
  if (rule.resources !== undefined) lines.push(`resources: ${list(rule.resources)}`);
  lines.push(`verbs: ${list(rule.verbs)}`);
  return lines.map((line, i) => `${i === 0 ? '- ' : '  '}${line}`).join('\n');
}

/**
 * The rule (and the kind of role and binding) that allows `denied`, with `verbs` instead of the
 * refused verb when given (a reflector needs `list` and `watch` both).
 */
export function suggestRbac(denied: DeniedRequest, verbs: readonly string[] = [denied.verb]): RbacSuggestion {
  const rule: RbacPolicyRule =
    denied.path !== undefined
      ? { nonResourceURLs: [denied.path], verbs }
      : { apiGroups: [denied.apiGroup ?? ''], resources: [denied.resource ?? ''], verbs };
  const namespaced = denied.namespace !== undefined && denied.path === undefined;
  return {
    role: namespaced ? 'Role' : 'ClusterRole',
    binding: namespaced ? 'RoleBinding' : 'ClusterRoleBinding',
    ...(namespaced ? { namespace: denied.namespace } : {}),
    rule,
    ...(denied.user === 'system:anonymous' ? {} : { subject: subjectOf(denied.user) }),
    yaml: ruleYaml(rule),
  };
}

/**
 * In words, with the rule: `To allow it, add this rule to a Role in namespace x and bind that Role
 * to ServiceAccount x/sa with a RoleBinding:` and the YAML, indented by `indent`.
 */
export function describeRbacSuggestion(s: RbacSuggestion, indent = '    '): string {
  const where = s.role === 'Role' ? `a Role in namespace ${s.namespace ?? ''}` : 'a ClusterRole';
  const to = s.subject === undefined ? '' : ` to ${describeSubject(s.subject)}`;
  const yaml = s.yaml.split('\n').map((line) => `${indent}${line}`).join('\n');
  return `To allow it, add this rule to ${where} and bind that ${s.role}${to} with a ${s.binding}:\n${yaml}`;
}
