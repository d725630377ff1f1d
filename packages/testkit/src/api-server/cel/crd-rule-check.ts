/**
 * The checks kube-apiserver makes on the `x-kubernetes-validations` of a CRD when it is created
 * or updated: every rule and `messageExpression` compiles, `fieldPath` names a field, `reason` is
 * known, messages have no line breaks, `oldSelf` is not used where there is nothing to correlate,
 * and the estimated cost stays within the limits (estimate.ts). Causes use kube-apiserver's
 * paths: `spec.validation.openAPIV3Schema` when all versions share one schema, else
 * `spec.versions[i].schema.openAPIV3Schema`, then `.properties[name]`, `.items`,
 * `.additionalProperties`.
 */
import type { FieldCause } from '../status-error.js';
import { compileRules, type RuleSchema, type ValidationRule } from './crd-rules.js';
import { costFactor, estimateCost, maxSize, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './estimate.js';

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

function goPointer(v: unknown, type: string): string {
  return v === undefined ? `(*${type})(nil)` : `(*${type})(0xc000000000)`;
}

/** The rule as Go's `%#v` prints an `apiextensions.ValidationRule`. */
function goRule(r: ValidationRule): string {
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}, Reason:${goPointer(r.reason, 'apiextensions.FieldValueErrorReason')}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}, OptionalOldSelf:${goPointer(r.optionalOldSelf, 'bool')}}`;
}

interface Check {
  readonly out: FieldCause[];
  total: number;
}

function checkNode(c: Check, path: string, s: RuleSchema, root: boolean, cardinality: number, uncorrelatable: string | undefined): void {
  const rules = s['x-kubernetes-validations'] ?? [];
  if (rules.length > 0) {
    const compiled = compileRules(s, root);
    compiled.forEach((cr, i) => {
      const at = `${path}.x-kubernetes-validations[${i}]`;
      const rule = cr.rule;
      if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
        c.out.push({ reason: 'FieldValueNotSupported', field: `${at}.reason`, message: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: ${REASONS.map((x) => JSON.stringify(x)).join(', ')}` });
      }
      if ((rule.message ?? '').includes('\n')) c.out.push({ reason: 'FieldValueInvalid', field: `${at}.message`, message: `Invalid value: ${JSON.stringify(rule.message)}: message must not contain line breaks` });
      if ((rule.rule ?? '').includes('\n') && (rule.message ?? '') === '') c.out.push({ reason: 'FieldValueRequired', field: `${at}.message`, message: 'Required value: message must be specified if rule contains line breaks' });
      if (cr.error !== undefined) {
        if (cr.errorIn === 'rule') c.out.push({ reason: 'FieldValueInvalid', field: `${at}.rule`, message: `Invalid value: ${goRule(rule)}: ${cr.wrongResultType ? '' : 'compilation failed: '}${cr.error}` });
        else if (cr.errorIn === 'messageExpression') {
          c.out.push({ reason: 'FieldValueInvalid', field: `${at}.messageExpression`, message: `Invalid value: ${JSON.stringify(rule.messageExpression)}: ${cr.wrongResultType ? '' : 'messageExpression compilation failed: '}${cr.error}` });
        } else c.out.push({ reason: 'FieldValueInvalid', field: `${at}.fieldPath`, message: `Invalid value: ${JSON.stringify(rule.fieldPath ?? '')}: fieldPath must be a valid path: ${cr.error}` });
        return;
      }
      if (cr.usesOldSelf && uncorrelatable !== undefined) {
        c.out.push({ reason: 'FieldValueInvalid', field: `${at}.rule`, message: `Invalid value: ${JSON.stringify(rule.rule)}: oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}` });
      }
      if (cr.program !== undefined) {
        const cost = (estimateCost(cr.program.expr, s) + (cr.message !== undefined ? estimateCost(cr.message.expr, s) : 0)) * cardinality;
        if (cost > STATIC_ESTIMATED_COST_LIMIT) {
          c.out.push({ reason: 'FieldValueForbidden', field: `${at}.rule`, message: `Forbidden: estimated rule cost exceeds budget by factor of ${costFactor(cost, STATIC_ESTIMATED_COST_LIMIT)} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)` });
        }
        c.total += cost;
      }
    });
  }
  for (const [k, p] of Object.entries(s.properties ?? {})) checkNode(c, `${path}.properties[${k}]`, p as RuleSchema, false, cardinality, uncorrelatable);
  if (s.items !== undefined) {
    const n = maxSize(s);
    const listUncorrelatable = uncorrelatable ?? (s['x-kubernetes-list-type'] === 'map' ? undefined : path);
    checkNode(c, `${path}.items`, s.items as RuleSchema, false, cardinality * n, listUncorrelatable);
  }
  if (typeof s.additionalProperties === 'object') checkNode(c, `${path}.additionalProperties`, s.additionalProperties as RuleSchema, false, cardinality * maxSize(s), uncorrelatable);
}

interface CrdVersionLike {
  readonly schema?: { readonly openAPIV3Schema?: unknown };
}

/** Causes for the validation rules of a CRD's versions (empty when they are all fine). */
export function crdRuleProblems(spec: { readonly versions?: readonly CrdVersionLike[] } | undefined): FieldCause[] {
  const versions = spec?.versions ?? [];
  const schemas = versions.map((v) => v.schema?.openAPIV3Schema);
  const shared = schemas.length > 0 && schemas.every((x) => JSON.stringify(x) === JSON.stringify(schemas[0]));
  const out: FieldCause[] = [];
  const targets = shared ? [{ path: 'spec.validation.openAPIV3Schema', schema: schemas[0] }] : schemas.map((schema, i) => ({ path: `spec.versions[${i}].schema.openAPIV3Schema`, schema }));
  for (const t of targets) {
    if (t.schema === null || typeof t.schema !== 'object') continue;
    const c: Check = { out, total: 0 };
    checkNode(c, t.path, t.schema as RuleSchema, true, 1, undefined);
    if (c.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
      out.push({ reason: 'FieldValueForbidden', field: t.path, message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of ${costFactor(c.total, STATIC_ESTIMATED_CRD_COST_LIMIT)} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)` });
    }
  }
  return out;
}
