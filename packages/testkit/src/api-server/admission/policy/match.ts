/**
 * Which requests a ValidatingAdmissionPolicy (its `matchConstraints`) or a binding (its
 * `matchResources`) applies to, as kube-apiserver's admission matcher decides: `resourceRules`
 * (groups, versions, resources with `*` and subresource forms, operations, `resourceNames`,
 * `scope`), `excludeResourceRules`, `namespaceSelector` (the labels of the request's namespace;
 * cluster-scoped objects other than namespaces always pass), `objectSelector` (the labels of the
 * new or the old object) and `matchPolicy` (Equivalent, the default, also matches the request's
 * resource through another served version of it; Exact only the version asked for).
 */
type Obj = Record<string, unknown>;

/** A label selector (`matchLabels`, `matchExpressions`). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** One `NamedRuleWithOperations`. */
export interface ResourceRule {
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly operations?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly scope?: string;
}

/** `MatchResources`. */
export interface MatchResources {
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly resourceRules?: readonly ResourceRule[];
  readonly excludeResourceRules?: readonly ResourceRule[];
  readonly matchPolicy?: string;
}

/** What a request is, for matching. */
export interface MatchRequest {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly group: string;
  readonly version: string;
  /** Versions the resource is served at (for `matchPolicy: Equivalent`). */
  readonly versions: readonly string[];
  readonly resource: string;
  readonly subresource: string;
  readonly namespaced: boolean;
  readonly name: string;
  readonly namespace: string;
  readonly object: Obj | undefined;
  readonly oldObject: Obj | undefined;
  /** The labels of the request's namespace (undefined: no namespace, or not found). */
  readonly namespaceLabels: Readonly<Record<string, string>> | undefined;
}

/** Whether `labels` satisfy `sel` (an absent selector matches everything). */
export function selectorMatches(sel: LabelSelector | undefined, labels: Readonly<Record<string, unknown>>): boolean {
  if (sel === undefined) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    switch (e.operator) {
      case 'In':
        if (!has || !(e.values ?? []).includes(String(value))) return false;
        break;
      case 'NotIn':
        if (has && (e.values ?? []).includes(String(value))) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function listed(values: readonly string[] | undefined, v: string): boolean {
  return (values ?? []).some((x) => x === '*' || x === v);
}

function resourceListed(resources: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const r of resources ?? []) {
    if (r === '*/*') return true;
    const [res = '', sub] = r.split('/');
    if (sub === undefined) {
      if (subresource === '' && (res === '*' || res === resource)) return true;
    } else if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

function ruleMatches(rule: ResourceRule, req: MatchRequest, equivalent: boolean): boolean {
  if (!listed(rule.operations, req.operation)) return false;
  if (!listed(rule.apiGroups, req.group)) return false;
  const versionOk = listed(rule.apiVersions, req.version) || (equivalent && req.versions.some((v) => listed(rule.apiVersions, v)));
  if (!versionOk) return false;
  if (!resourceListed(rule.resources, req.resource, req.subresource)) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && req.namespaced) return false;
  if (scope === 'Namespaced' && !req.namespaced) return false;
  if ((rule.resourceNames ?? []).length > 0 && !(rule.resourceNames ?? []).includes(req.name)) return false;
  return true;
}

function labelsOf(o: Obj | undefined): Readonly<Record<string, unknown>> | undefined {
  const meta = o?.['metadata'];
  if (meta === null || typeof meta !== 'object') return o === undefined ? undefined : {};
  const l = (meta as Obj)['labels'];
  return l !== null && typeof l === 'object' ? (l as Record<string, unknown>) : {};
}

/** Whether `m` matches the request. */
export function matchesResources(m: MatchResources | undefined, req: MatchRequest): boolean {
  if (m === undefined) return false;
  const equivalent = (m.matchPolicy ?? 'Equivalent') === 'Equivalent';
  if (!(m.resourceRules ?? []).some((r) => ruleMatches(r, req, equivalent))) return false;
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, req, equivalent))) return false;
  // Namespaces are matched by their own labels; other cluster-scoped objects pass any namespace selector.
  const isNamespace = req.group === '' && req.resource === 'namespaces';
  if (isNamespace) {
    if (!selectorMatches(m.namespaceSelector, labelsOf(req.object ?? req.oldObject) ?? {})) return false;
  } else if (req.namespaced && !selectorMatches(m.namespaceSelector, req.namespaceLabels ?? {})) return false;
  const objectLabels = labelsOf(req.object);
  const oldLabels = labelsOf(req.oldObject);
  const objectOk = (objectLabels !== undefined && selectorMatches(m.objectSelector, objectLabels)) || (oldLabels !== undefined && selectorMatches(m.objectSelector, oldLabels));
  return objectOk;
}
