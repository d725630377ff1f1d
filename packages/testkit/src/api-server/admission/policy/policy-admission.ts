/**
 * ValidatingAdmissionPolicy admission, as kube-apiserver 1.30's validating policy plugin: for
 * every policy whose `matchConstraints` match the request and each of its bindings that matches
 * too, the params are looked up (`paramKind` + `paramRef`: by name or selector, in the binding's
 * namespace, the request's, or cluster-wide; none found → `parameterNotFoundAction`), the
 * `matchConditions` decide whether it applies, `variables` are evaluated, then `validations`.
 * A failed validation (or an evaluation error under `failurePolicy: Fail`) goes by the binding's
 * `validationActions`: Deny refuses the request with kube-apiserver's Status (422 Invalid unless the
 * validation's `reason` says otherwise, message `<resource> "<name>" is forbidden:
 * ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: <message>`), Warn
 * adds a `Warning` header, Audit is ignored (no audit log here). Policies and bindings themselves,
 * and webhook configurations, are exempt.
 */
import { randomUUID } from 'node:crypto';
import { celMap, type CelValue } from '@bufbuild/cel';
import { celErrorText, type CompiledExpression } from '../../cel/compile.js';
import { PER_CALL_LIMIT } from '../../cel/cost.js';
import { untypedCelValue } from '../../cel/values.js';
import type { ObjectStore } from '../../object-store.js';
import { apiVersionOf, NAMESPACE_RESOURCE_ID, resourceId, type ResourceRegistry, type ServedResource } from '../../resource-registry.js';
import { failure, StatusError } from '../../status-error.js';
import { compilePolicy, type Compiled, type CompiledPolicy } from './compile-policy.js';
import { matchesResources, selectorMatches, type MatchRequest, type MatchResources } from './match.js';
import { BINDING_RESOURCE_ID, POLICY_GROUP, POLICY_RESOURCE_ID } from './policy-resources.js';
import type { BindingSpec, PolicySpec } from './policy-types.js';
import type { AdmissionRequestHolder } from './request-context.js';

type Obj = Record<string, unknown>;

/** One write admission decides on. */
export interface PolicyAttributes {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly r: ServedResource;
  readonly version: string;
  readonly namespace: string;
  readonly name: string;
  /** `status` for a write of the status subresource, else ''. */
  readonly subresource: string;
  /** The new object (undefined on delete). */
  readonly object: Obj | undefined;
  /** The stored object (undefined on create). */
  readonly oldObject: Obj | undefined;
}

const EXEMPT = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'validatingwebhookconfigurations', 'mutatingwebhookconfigurations']);

interface Decision {
  readonly message: string;
  readonly reason: string;
}

/** Status code of a denial's reason (kube-apiserver's `reasonToCode`). */
function codeOf(reason: string): number {
  switch (reason) {
    case 'Unauthorized':
      return 401;
    case 'Forbidden':
      return 403;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

function metaOf(o: Obj | undefined): Obj {
  const m = o?.['metadata'];
  return m !== null && typeof m === 'object' ? (m as Obj) : {};
}

function byName(a: { object: Obj }, b: { object: Obj }): number {
  return String(metaOf(a.object)['name']).localeCompare(String(metaOf(b.object)['name']));
}

/** A binding's `matchResources` narrows its policy's match; without resource rules it does not constrain resources. */
function bindingMatches(m: MatchResources | undefined, req: MatchRequest): boolean {
  if (m === undefined) return true;
  const rules = (m.resourceRules ?? []).length > 0 ? m.resourceRules : [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*', '*/*'], operations: ['*'] }];
  return matchesResources({ ...m, resourceRules: rules }, req);
}

type Outcome = { readonly type: 'value'; readonly value: CelValue } | { readonly type: 'error'; readonly message: string };

function run(c: Compiled, bindings: Record<string, CelValue>): Outcome {
  if (!c.ok) return { type: 'error', message: `compilation failed: ${c.error}` };
  const r = c.program.evaluate(bindings, PER_CALL_LIMIT);
  if (r.type === 'costExceeded') return { type: 'error', message: 'operation cancelled: actual cost limit exceeded' };
  if (r.type === 'error') return { type: 'error', message: celErrorText(r.message) };
  return { type: 'value', value: r.value };
}

function sourceOf(c: Compiled, fallback: string | undefined): string {
  return c.ok ? (c.program as CompiledExpression).source : (fallback ?? '');
}

/** The validating admission policy plugin of one server core. */
export class ValidatingPolicyAdmission {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly requests: AdmissionRequestHolder,
  ) {}

  /** Decides a write; throws the Status of the first denial. */
  admit(a: PolicyAttributes): void {
    if (a.r.group === POLICY_GROUP && EXEMPT.has(a.r.plural)) return;
    // Most servers have no policy: counted first, without listing on every write.
    if (this.store.count(POLICY_RESOURCE_ID) === 0) return;
    const policies = this.store.snapshot(POLICY_RESOURCE_ID);
    const bindings = this.store.snapshot(BINDING_RESOURCE_ID);
    const nsObject = a.r.namespaced && a.namespace !== '' ? (this.store.get(NAMESPACE_RESOURCE_ID, a.namespace)?.object as Obj | undefined) : undefined;
    const req: MatchRequest = {
      operation: a.operation, group: a.r.group, version: a.version, versions: a.r.versions, resource: a.r.plural, subresource: a.subresource,
      namespaced: a.r.namespaced, name: a.name, namespace: a.namespace, object: a.object, oldObject: a.oldObject,
      namespaceLabels: nsObject === undefined ? undefined : ((metaOf(nsObject)['labels'] ?? {}) as Record<string, string>),
    };
    const denied: Decision[] = [];
    const ctx = this.requests.context;
    const request = this.requestValue(a);
    for (const p of [...policies].sort(byName)) {
      const policy = p.object as Obj;
      const spec = (policy['spec'] ?? {}) as PolicySpec;
      if (!matchesResources(spec.matchConstraints, req)) continue;
      const policyName = String(metaOf(policy)['name'] ?? '');
      const compiled = compilePolicy(`${String(metaOf(policy)['uid'] ?? policyName)}@${p.rv}`, spec);
      for (const b of bindings.filter((x) => ((x.object as Obj)['spec'] as BindingSpec | undefined)?.policyName === policyName).sort(byName)) {
        const binding = b.object as Obj;
        const bspec = (binding['spec'] ?? {}) as BindingSpec;
        if (!bindingMatches(bspec.matchResources, req)) continue;
        const bindingName = String(metaOf(binding)['name'] ?? '');
        const failed = (message: string, reason = 'Invalid', isError = false) => {
          if (isError && spec.failurePolicy === 'Ignore') return;
          for (const action of bspec.validationActions ?? []) {
            if (action === 'Deny') denied.push({ message: `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${message}`, reason });
            else if (action === 'Warn') ctx.warn(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${message}`);
          }
        };
        const params = this.paramsFor(spec, bspec, a);
        if (params.type === 'error') {
          failed(params.message, 'Invalid', true);
          continue;
        }
        if (params.type === 'none') continue;
        const base: Record<string, CelValue> = {
          object: a.object === undefined ? null : untypedCelValue(a.object),
          oldObject: a.oldObject === undefined ? null : untypedCelValue(a.oldObject),
          request,
          namespaceObject: nsObject === undefined ? null : untypedCelValue(nsObject),
        };
        for (const param of params.objects) this.evaluate(compiled, spec, { ...base, params: param === null ? null : untypedCelValue(param) }, failed);
      }
    }
    const first = denied[0];
    if (first !== undefined) {
      const qualified = a.r.group === '' ? a.r.plural : `${a.r.plural}.${a.r.group}`;
      throw new StatusError(failure(codeOf(first.reason), first.reason, `${qualified} ${JSON.stringify(a.name)} is forbidden: ${first.message}`, {
        name: a.name, ...(a.r.group !== '' ? { group: a.r.group } : {}), kind: a.r.plural, causes: [{ message: first.message }],
      }));
    }
  }

  private evaluate(compiled: CompiledPolicy, spec: PolicySpec, bindings: Record<string, CelValue>, failed: (message: string, reason?: string, isError?: boolean) => void): void {
    for (const [i, mc] of compiled.matchConditions.entries()) {
      const r = run(mc, bindings);
      if (r.type === 'error') {
        failed(`failed to evaluate matchCondition '${spec.matchConditions?.[i]?.name ?? ''}': ${r.message}`, 'Invalid', true);
        return;
      }
      if (r.value !== true) return;
    }
    const variables = new Map<string, CelValue>();
    const variableErrors = new Map<string, string>();
    for (const v of compiled.variables) {
      const r = run(v.expression, { ...bindings, variables: celMap(new Map(variables)) });
      if (r.type === 'error') variableErrors.set(v.name, r.message);
      else variables.set(v.name, r.value);
    }
    const withVariables = { ...bindings, variables: celMap(new Map(variables)) };
    compiled.validations.forEach((v, i) => {
      const source = sourceOf(v.expression, spec.validations?.[i]?.expression);
      const broken = [...variableErrors.keys()].find((name) => new RegExp(`\\bvariables\\.${name}\\b`).test(source));
      const r: Outcome = broken !== undefined ? { type: 'error', message: variableErrors.get(broken) ?? '' } : run(v.expression, withVariables);
      if (r.type === 'error') {
        failed(`expression '${source}' resulted in error: ${r.message}`, 'Invalid', true);
        return;
      }
      if (r.value === true) return;
      const validation = spec.validations?.[i] ?? {};
      let message = (validation.message ?? '') !== '' ? (validation.message ?? '') : `failed expression: ${source}`;
      if (v.message !== undefined) {
        const m = run(v.message, withVariables);
        if (m.type === 'value' && typeof m.value === 'string' && m.value.trim() !== '' && !m.value.includes('\n')) message = m.value.trim();
      }
      failed(message, validation.reason ?? 'Invalid');
    });
  }

  /** The params objects to evaluate with (`[null]` without paramKind), none (skip), or a configuration error. */
  private paramsFor(spec: PolicySpec, b: BindingSpec, a: PolicyAttributes): { type: 'objects'; objects: (Obj | null)[] } | { type: 'none' } | { type: 'error'; message: string } {
    if (spec.paramKind === undefined) return { type: 'objects', objects: [null] };
    const kind = this.registry.byKind(spec.paramKind.apiVersion ?? '', spec.paramKind.kind ?? '');
    if (kind === undefined) {
      const [g, v] = (spec.paramKind.apiVersion ?? '').includes('/') ? (spec.paramKind.apiVersion ?? '').split('/') : ['', spec.paramKind.apiVersion ?? ''];
      return { type: 'error', message: `failed to configure policy: failed to find resource referenced by paramKind: '${g ?? ''}/${v ?? ''}, Kind=${spec.paramKind.kind ?? ''}'` };
    }
    const ref = b.paramRef;
    if (ref === undefined) return { type: 'error', message: 'failed to configure binding: paramRef is required when paramKind is set' };
    let namespace: string | undefined;
    if (kind.namespaced) {
      namespace = (ref.namespace ?? '') !== '' ? ref.namespace : a.r.namespaced ? a.namespace : undefined;
      if (namespace === undefined) return { type: 'error', message: 'failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
    }
    const id = resourceId(kind);
    let found: Obj[];
    if ((ref.name ?? '') !== '') {
      const e = this.store.get(id, namespace === undefined ? (ref.name ?? '') : `${namespace}/${ref.name ?? ''}`);
      found = e === undefined ? [] : [e.object as Obj];
    } else {
      found = this.store
        .snapshot(id)
        .filter((e) => namespace === undefined || e.key.startsWith(`${namespace}/`))
        .map((e) => e.object as Obj)
        .filter((o) => selectorMatches(ref.selector ?? {}, (metaOf(o)['labels'] ?? {}) as Record<string, string>));
    }
    if (found.length > 0) return { type: 'objects', objects: found };
    if (ref.parameterNotFoundAction === 'Allow') return { type: 'none' };
    return { type: 'error', message: 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction' };
  }

  private requestValue(a: PolicyAttributes): CelValue {
    const user = this.requests.context.user;
    const gvk = { group: a.r.group, version: a.version, kind: a.r.kind };
    const gvr = { group: a.r.group, version: a.version, resource: a.r.plural };
    return untypedCelValue({
      uid: randomUUID(), kind: gvk, resource: gvr, subResource: a.subresource, requestKind: gvk, requestResource: gvr, requestSubResource: a.subresource,
      name: a.name, namespace: a.namespace, operation: a.operation, userInfo: { username: user.username, groups: [...user.groups] },
      dryRun: this.requests.context.dryRun, apiVersion: apiVersionOf(a.r.group, a.version),
    });
  }
}

/** The attributes of a write to `r`: `object` the new state (undefined on delete), `old` the stored one (undefined on create). */
export function policyAttributes(operation: PolicyAttributes['operation'], r: ServedResource, object: Obj | undefined, old: Obj | undefined, subresource = ''): PolicyAttributes {
  const source = object ?? old ?? {};
  const apiVersion = typeof source['apiVersion'] === 'string' ? source['apiVersion'] : '';
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion !== '' ? apiVersion : (r.versions[0] ?? '');
  const meta = metaOf(source);
  return { operation, r, version, namespace: String(meta['namespace'] ?? ''), name: String(meta['name'] ?? ''), subresource, object, oldObject: old };
}
