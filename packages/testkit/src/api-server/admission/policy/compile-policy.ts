/**
 * Compiles the CEL expressions of a ValidatingAdmissionPolicy (cached by the policy's
 * resourceVersion) and checks a policy or binding on create and update as kube-apiserver does
 * for the fields admission relies on: required fields, known enumerations, and expressions that
 * compile (`spec.validations[0].expression: Invalid value: "…": compilation failed: ERROR: …`).
 */
import { CelCompileError, compileExpression, type CompiledExpression } from '../../cel/compile.js';
import type { FieldCause } from '../../status-error.js';
import type { BindingSpec, PolicySpec } from './policy-types.js';

/** The variables of policy expressions (`authorizer` is declared but not bound here). */
const POLICY_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables', 'authorizer'];

/** A compiled expression, or why it does not compile. */
export type Compiled = { readonly ok: true; readonly program: CompiledExpression } | { readonly ok: false; readonly error: string };

/** The compiled expressions of one policy. */
export interface CompiledPolicy {
  readonly validations: readonly { readonly expression: Compiled; readonly message: Compiled | undefined }[];
  readonly matchConditions: readonly Compiled[];
  readonly variables: readonly { readonly name: string; readonly expression: Compiled }[];
}

function compile(source: string | undefined): Compiled {
  try {
    return { ok: true, program: compileExpression(source ?? '', { variables: POLICY_VARIABLES }) };
  } catch (e) {
    return { ok: false, error: e instanceof CelCompileError ? e.message : String(e) };
  }
}

const CACHE = new Map<string, CompiledPolicy>();

/** The compiled expressions of `spec` (`key`: the policy's uid and resourceVersion). */
export function compilePolicy(key: string, spec: PolicySpec): CompiledPolicy {
  const hit = CACHE.get(key);
  if (hit !== undefined) return hit;
  const compiled: CompiledPolicy = {
    validations: (spec.validations ?? []).map((v) => ({ expression: compile(v.expression), message: (v.messageExpression ?? '') !== '' ? compile(v.messageExpression) : undefined })),
    matchConditions: (spec.matchConditions ?? []).map((m) => compile(m.expression)),
    variables: (spec.variables ?? []).map((v) => ({ name: v.name ?? '', expression: compile(v.expression) })),
  };
  if (CACHE.size > 512) CACHE.clear();
  CACHE.set(key, compiled);
  return compiled;
}

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];

function quoteList(xs: readonly string[]): string {
  return xs.map((x) => JSON.stringify(x)).join(', ');
}

/** Causes for a ValidatingAdmissionPolicy about to be stored. */
export function policyProblems(spec: PolicySpec | undefined): FieldCause[] {
  const out: FieldCause[] = [];
  const s = spec ?? {};
  if (s.matchConstraints === undefined) out.push({ reason: 'FieldValueRequired', field: 'spec.matchConstraints', message: 'Required value' });
  else if ((s.matchConstraints.resourceRules ?? []).length === 0) out.push({ reason: 'FieldValueRequired', field: 'spec.matchConstraints.resourceRules', message: 'Required value' });
  if ((s.validations ?? []).length === 0 && (s.auditAnnotations ?? []).length === 0) {
    out.push({ reason: 'FieldValueRequired', field: 'spec.validations', message: 'Required value: validations or auditAnnotations must contain at least one item' });
  }
  if (s.failurePolicy !== undefined && !FAILURE_POLICIES.includes(s.failurePolicy)) {
    out.push({ reason: 'FieldValueNotSupported', field: 'spec.failurePolicy', message: `Unsupported value: ${JSON.stringify(s.failurePolicy)}: supported values: ${quoteList(FAILURE_POLICIES)}` });
  }
  const check = (field: string, source: string | undefined, what = 'compilation failed') => {
    if ((source ?? '') === '') {
      out.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
      return;
    }
    const c = compile(source);
    if (!c.ok) out.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(source)}: ${what}: ${c.error}` });
  };
  (s.validations ?? []).forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v.expression);
    if ((v.messageExpression ?? '') !== '') check(`spec.validations[${i}].messageExpression`, v.messageExpression, 'messageExpression compilation failed');
    if (v.reason !== undefined && !REASONS.includes(v.reason)) {
      out.push({ reason: 'FieldValueNotSupported', field: `spec.validations[${i}].reason`, message: `Unsupported value: ${JSON.stringify(v.reason)}: supported values: ${quoteList(REASONS)}` });
    }
  });
  (s.matchConditions ?? []).forEach((m, i) => {
    if ((m.name ?? '') === '') out.push({ reason: 'FieldValueRequired', field: `spec.matchConditions[${i}].name`, message: 'Required value' });
    check(`spec.matchConditions[${i}].expression`, m.expression);
  });
  (s.variables ?? []).forEach((v, i) => {
    if ((v.name ?? '') === '') out.push({ reason: 'FieldValueRequired', field: `spec.variables[${i}].name`, message: 'Required value' });
    check(`spec.variables[${i}].expression`, v.expression);
  });
  (s.auditAnnotations ?? []).forEach((a, i) => {
    if ((a.key ?? '') === '') out.push({ reason: 'FieldValueRequired', field: `spec.auditAnnotations[${i}].key`, message: 'Required value' });
    check(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression);
  });
  if (s.paramKind !== undefined) {
    if ((s.paramKind.apiVersion ?? '') === '') out.push({ reason: 'FieldValueRequired', field: 'spec.paramKind.apiVersion', message: 'Required value' });
    if ((s.paramKind.kind ?? '') === '') out.push({ reason: 'FieldValueRequired', field: 'spec.paramKind.kind', message: 'Required value' });
  }
  return out;
}

/** Causes for a ValidatingAdmissionPolicyBinding about to be stored. */
export function bindingProblems(spec: BindingSpec | undefined): FieldCause[] {
  const out: FieldCause[] = [];
  const s = spec ?? {};
  if ((s.policyName ?? '') === '') out.push({ reason: 'FieldValueRequired', field: 'spec.policyName', message: 'Required value' });
  const actions = s.validationActions ?? [];
  if (actions.length === 0) out.push({ reason: 'FieldValueRequired', field: 'spec.validationActions', message: 'Required value: at least one validation action is required' });
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) out.push({ reason: 'FieldValueNotSupported', field: `spec.validationActions[${i}]`, message: `Unsupported value: ${JSON.stringify(a)}: supported values: ${quoteList(ACTIONS)}` });
  });
  if (actions.includes('Deny') && actions.includes('Warn')) {
    out.push({ reason: 'FieldValueInvalid', field: 'spec.validationActions', message: `Invalid value: ${JSON.stringify(actions)}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)` });
  }
  if (s.paramRef !== undefined) {
    const p = s.paramRef;
    if ((p.name ?? '') !== '' && p.selector !== undefined) out.push({ reason: 'FieldValueForbidden', field: 'spec.paramRef.name', message: 'Forbidden: name and selector are mutually exclusive' });
    if ((p.name ?? '') === '' && p.selector === undefined) out.push({ reason: 'FieldValueRequired', field: 'spec.paramRef', message: 'Required value: one of name or selector must be specified' });
    if (p.parameterNotFoundAction === undefined) out.push({ reason: 'FieldValueRequired', field: 'spec.paramRef.parameterNotFoundAction', message: 'Required value' });
    else if (!['Allow', 'Deny'].includes(p.parameterNotFoundAction)) {
      out.push({ reason: 'FieldValueNotSupported', field: 'spec.paramRef.parameterNotFoundAction', message: `Unsupported value: ${JSON.stringify(p.parameterNotFoundAction)}: supported values: "Allow", "Deny"` });
    }
  }
  return out;
}
