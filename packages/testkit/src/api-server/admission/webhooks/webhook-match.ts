/**
 * Which webhooks a request calls, as kube-apiserver 1.20's `ShouldCallHook`: namespaceSelector,
 * objectSelector, then the rules (scope, operations, groups, versions, resources with
 * subresources and `*`); with `matchPolicy: Equivalent`, the same resource in another served
 * version of its group matches too and the webhook gets the object in that version.
 */
import { compileLabelSelector, type StructuredLabelSelector } from 'rxkube/api';
import { failure, StatusError } from '../../status-error.js';
import type { AdmissionWebhook, WebhookLabelSelector, WebhookRule } from './webhook-config.js';

type Obj = Record<string, unknown>;

/** A group, version and resource (`GroupVersionResource`). */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** What a webhook is matched against (kube-apiserver's `admission.Attributes`). */
export interface AdmissionAttributes {
  /** The resource as requested. */
  readonly resource: GroupVersionResource;
  readonly kind: string;
  /** Other served versions of the resource (for `matchPolicy: Equivalent`). */
  readonly versions: readonly string[];
  readonly subresource: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  /** '' for cluster-scoped resources. */
  readonly namespace: string;
  readonly name: string;
  readonly object: Obj | undefined;
  readonly oldObject: Obj | undefined;
  readonly dryRun: boolean;
}

/** A webhook to call and the resource (version) it is called for. */
export interface WebhookInvocation {
  readonly webhook: AdmissionWebhook;
  readonly resource: GroupVersionResource;
}

function exactOrWildcard(items: readonly string[], requested: string): boolean {
  return items.some((i) => i === '*' || i === requested);
}

function ruleMatches(rule: WebhookRule, a: AdmissionAttributes, resource: GroupVersionResource): boolean {
  const isNamespace = resource.group === '' && resource.version === 'v1' && resource.resource === 'namespaces';
  const scope = rule.scope === '*' || (rule.scope === 'Namespaced' ? !isNamespace && a.namespace !== '' : rule.scope === 'Cluster' ? isNamespace || a.namespace === '' : false);
  if (!scope) return false;
  if (!rule.operations.some((o) => o === '*' || o === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group) || !exactOrWildcard(rule.apiVersions, resource.version)) return false;
  return rule.resources.some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === a.subresource);
  });
}

function labelsOf(o: Obj | undefined): Record<string, string> | undefined {
  if (o === undefined) return undefined;
  const labels = (o['metadata'] as Obj | undefined)?.['labels'];
  return typeof labels === 'object' && labels !== null ? (labels as Record<string, string>) : {};
}

function isEmpty(s: WebhookLabelSelector): boolean {
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

function compiled(h: AdmissionWebhook, s: WebhookLabelSelector): (labels: Record<string, string>) => boolean {
  try {
    return compileLabelSelector(s as StructuredLabelSelector);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new StatusError(failure(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] }));
  }
}

/**
 * Whether the namespace selector lets the request through: cluster-scoped resources always
 * match; a namespace being created or updated is matched on its own labels; otherwise the
 * namespace's labels (`namespaceLabels` undefined: the namespace does not exist, 404 as kube-apiserver).
 */
function namespaceMatches(h: AdmissionWebhook, a: AdmissionAttributes, namespaceLabels: (ns: string) => Record<string, string> | undefined): boolean {
  const isNamespaces = a.resource.group === '' && a.resource.resource === 'namespaces';
  if (a.namespace === '' && !isNamespaces) return true;
  if (isEmpty(h.namespaceSelector)) return true;
  const matches = compiled(h, h.namespaceSelector);
  if (isNamespaces && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) return matches(labelsOf(a.object) ?? {});
  const ns = isNamespaces ? a.name : a.namespace;
  const labels = namespaceLabels(ns);
  if (labels === undefined) throw new StatusError(failure(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' }));
  return matches(labels);
}

function objectMatches(h: AdmissionWebhook, a: AdmissionAttributes): boolean {
  if (isEmpty(h.objectSelector)) return true;
  const matches = compiled(h, h.objectSelector);
  const o = labelsOf(a.object);
  const old = labelsOf(a.oldObject);
  return (o !== undefined && matches(o)) || (old !== undefined && matches(old));
}

function attempt(f: () => boolean): { readonly matches: boolean; readonly error?: StatusError } {
  try {
    return { matches: f() };
  } catch (e) {
    if (e instanceof StatusError) return { matches: false, error: e };
    throw e;
  }
}

function invocationOf(h: AdmissionWebhook, a: AdmissionAttributes): WebhookInvocation | undefined {
  if (h.rules.some((r) => ruleMatches(r, a, a.resource))) return { webhook: h, resource: a.resource };
  if (h.matchPolicy !== 'Equivalent') return undefined;
  for (const r of h.rules) {
    for (const version of a.versions) {
      if (version === a.resource.version) continue;
      const equivalent = { ...a.resource, version };
      if (ruleMatches(r, a, equivalent)) return { webhook: h, resource: equivalent };
    }
  }
  return undefined;
}

/**
 * The invocation of `h` for the request, or undefined when it does not apply. A selector that
 * cannot be evaluated (namespace not found: 404; bad selector: 500) fails the request only when
 * a rule matches, as kube-apiserver.
 */
export function shouldCallHook(h: AdmissionWebhook, a: AdmissionAttributes, namespaceLabels: (ns: string) => Record<string, string> | undefined): WebhookInvocation | undefined {
  const ns = attempt(() => namespaceMatches(h, a, namespaceLabels));
  if (!ns.matches && ns.error === undefined) return undefined;
  const ob = attempt(() => objectMatches(h, a));
  if (!ob.matches && ob.error === undefined) return undefined;
  const invocation = invocationOf(h, a);
  if (invocation === undefined) return undefined;
  if (ns.error !== undefined) throw ns.error;
  if (ob.error !== undefined) throw ob.error;
  return invocation;
}
