/**
 * `x-kubernetes-validations` of a CRD's structural schema, evaluated on create and update of a
 * custom resource as kube-apiserver 1.30 does (apiextensions-apiserver schema/cel): each rule runs
 * with `self` bound to the value at its schema node (for each element under `items` and
 * `additionalProperties`), transition rules (those using `oldSelf`) only when there is an old value
 * to correlate (same property, same map key, same key fields of an `x-kubernetes-list-type: map`
 * element) unless `optionalOldSelf: true`, in which case `oldSelf` is an optional. A false rule is a
 * field cause (`Invalid value: "object": <message>` at the rule's node or `fieldPath`; `reason`
 * picks Forbidden, Required or Duplicate instead); a runtime error is a cause too; cost limits as
 * in cost.ts.
 */
import type { CelInput } from '@bufbuild/cel';
import type { SchemaNode } from '../crd-schema.js';
import type { FieldCause } from '../status-error.js';
import { sameJsonIgnoringKeyOrder } from '../json-equal.js';
import { celErrorText, compileExpression, CelCompileError, type CompiledExpression } from './compile.js';
import { PER_CALL_LIMIT, RUNTIME_COST_BUDGET } from './cost.js';
import { optionalOf } from './lib-optional.js';
import { celValue } from './values.js';

/** One entry of `x-kubernetes-validations`. */
export interface ValidationRule {
  readonly rule?: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/** A schema node with the fields rules use. */
export type RuleSchema = SchemaNode & {
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: string;
};

/** A compiled rule: its program, message program and the path suffix its `fieldPath` names. */
export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program: CompiledExpression | undefined;
  readonly message: CompiledExpression | undefined;
  readonly error: string | undefined;
  /** What the error is in. */
  readonly errorIn: 'rule' | 'messageExpression' | 'fieldPath' | undefined;
  /** The error is the expression's result type, not its compilation. */
  readonly wrongResultType: boolean;
  readonly usesOldSelf: boolean;
  readonly fieldPathSuffix: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `fieldPath` (`.a.b`, `.m['k']`) as a field path suffix (`.a.b`, `.m[k]`); throws when it names no field of `s`. */
export function normalizeFieldPath(fieldPath: string, s: RuleSchema): string {
  let out = '';
  let cur: SchemaNode | undefined = s;
  const re = /\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while ((m = re.exec(fieldPath)) !== null) {
    at = re.lastIndex;
    const name = m[1] ?? (m[2] ?? '').replace(/\\(.)/g, '$1');
    if (cur?.properties?.[name] !== undefined) {
      out += `.${name}`;
      cur = cur.properties[name];
    } else if (m[2] !== undefined && typeof cur?.additionalProperties === 'object') {
      out += `[${name}]`;
      cur = cur.additionalProperties;
    } else throw new Error('does not refer to a valid field');
  }
  if (at !== fieldPath.length || fieldPath === '') throw new Error(`expected [ or . but got: ${fieldPath.slice(at)}`);
  return out;
}

const COMPILED = new WeakMap<SchemaNode, readonly CompiledRule[]>();

function ruleErrorString(rule: ValidationRule): string {
  return (rule.message ?? '').trim() !== '' ? (rule.message ?? '').trim() : (rule.rule ?? '').trim();
}

/** Compiles the rules of one schema node (cached per node); compile errors are kept on the rule. */
export function compileRules(s: RuleSchema, root: boolean): readonly CompiledRule[] {
  const hit = COMPILED.get(s);
  if (hit !== undefined) return hit;
  const rules = s['x-kubernetes-validations'] ?? [];
  const schemaOf = (v: string) => (v === 'self' || v === 'oldSelf' ? (root ? { ...s, 'x-kubernetes-embedded-resource': false } : s) : undefined);
  const scope = { variables: ['self', 'oldSelf'], schemaOf, resultType: 'bool' as const };
  const messageScope = { ...scope, resultType: 'string' as const };
  const out = rules.map((rule): CompiledRule => {
    let program: CompiledExpression | undefined;
    let message: CompiledExpression | undefined;
    let error: string | undefined;
    let wrongResultType = false;
    let errorIn: CompiledRule['errorIn'] = 'rule';
    let fieldPathSuffix = '';
    try {
      if ((rule.rule ?? '') === '') throw new CelCompileError('rule is not specified');
      program = compileExpression(rule.rule ?? '', scope);
      errorIn = 'messageExpression';
      if ((rule.messageExpression ?? '') !== '') message = compileExpression(rule.messageExpression ?? '', messageScope);
      errorIn = 'fieldPath';
      if ((rule.fieldPath ?? '') !== '') fieldPathSuffix = normalizeFieldPath(rule.fieldPath ?? '', s);
      errorIn = undefined;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
      wrongResultType = e instanceof CelCompileError && e.wrongResultType;
    }
    return { rule, program, message, error, errorIn, wrongResultType, usesOldSelf: program?.references.has('oldSelf') === true, fieldPathSuffix };
  });
  COMPILED.set(s, out);
  return out;
}

/** Go's field path text: the root is `<nil>`. */
function shown(path: string): string {
  return path === '' ? '<nil>' : path.startsWith('.') ? path.slice(1) : path;
}

function causeFor(path: string, type: string, detail: string, reason: string | undefined): FieldCause {
  const field = shown(path);
  switch (reason) {
    case 'FieldValueForbidden':
      return { reason, message: `Forbidden: ${detail}`, field };
    case 'FieldValueRequired':
      return { reason, message: `Required value: ${detail}`, field };
    case 'FieldValueDuplicate':
      return { reason, message: `Duplicate value: ${JSON.stringify(type)}`, field };
    default:
      return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(type)}: ${detail}`, field };
  }
}

interface Walk {
  budget: number;
  readonly out: FieldCause[];
  /** Where ratcheted failures go (warnings of the response). */
  readonly warn: (text: string) => void;
}

/**
 * `ratchet`: the value (or, where it has no correlated old value, its nearest correlated ancestor)
 * is unchanged by the update, so failures of rules without `oldSelf` are warnings (kube-apiserver
 * 1.30's CRD validation ratcheting).
 */
function evaluateRules(w: Walk, path: string, s: RuleSchema, v: unknown, old: unknown, root: boolean, ratchet: boolean): void {
  const rules = s['x-kubernetes-validations'];
  if (rules === undefined || rules.length === 0) return;
  const type = s.type ?? '';
  if (w.budget <= 0) {
    w.out.push(causeFor(path, type, 'validation failed due to running out of cost budget, no further validation rules will be run', undefined));
    w.budget = -1;
    return;
  }
  const self = celValue(v, s, root);
  const oldSelf = old === undefined || old === null ? undefined : celValue(old, s, root);
  for (const c of compileRules(s, root)) {
    if (c.error !== undefined || c.program === undefined) {
      w.out.push(causeFor(path, type, `rule compile error: ${c.error ?? 'rule is not specified'}`, undefined));
      continue;
    }
    const optional = c.rule.optionalOldSelf === true;
    if (c.usesOldSelf && oldSelf === undefined && !optional) continue;
    const bindings: Record<string, CelInput> = { self };
    if (optional) bindings['oldSelf'] = optionalOf(oldSelf);
    else if (oldSelf !== undefined) bindings['oldSelf'] = oldSelf;
    const r = c.program.evaluate(bindings, Math.min(PER_CALL_LIMIT, w.budget));
    if (r.type === 'costExceeded') {
      const overall = r.cost > w.budget;
      w.out.push(causeFor(path, type, overall ? 'validation failed due to running out of cost budget, no further validation rules will be run' : `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(c.rule)}`, undefined));
      w.budget = -1;
      return;
    }
    w.budget -= r.cost;
    if (r.type === 'error') {
      const text = celErrorText(r.message);
      w.out.push(causeFor(path, type, text === 'no such overload' ? `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(c.rule)}` : `${text} evaluating rule: ${ruleErrorString(c.rule)}`, undefined));
      continue;
    }
    if (r.value === true) continue;
    let detail = (c.rule.message ?? '').trim() !== '' ? (c.rule.message ?? '').trim() : `failed rule: ${ruleErrorString(c.rule)}`;
    if (c.message !== undefined) {
      const m = c.message.evaluate(bindings, Math.min(PER_CALL_LIMIT, w.budget));
      if (m.type === 'costExceeded') {
        w.out.push(causeFor(path + c.fieldPathSuffix, type, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run', undefined));
        w.budget = -1;
        return;
      }
      w.budget -= m.cost;
      const text = m.type === 'value' && typeof m.value === 'string' ? m.value.trim() : '';
      if (text !== '' && !text.includes('\n') && text.length <= 5 * 1024) detail = text;
    }
    const cause = causeFor(path + c.fieldPathSuffix, type, detail, c.rule.reason);
    if (ratchet && !c.usesOldSelf) w.warn(`${cause.field}: ${cause.message}`);
    else w.out.push(cause);
  }
}

function correlatedElement(s: RuleSchema, item: unknown, old: unknown): unknown {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old) || !isObj(item)) return undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  return old.find((o) => isObj(o) && keys.every((k) => JSON.stringify(o[k]) === JSON.stringify(item[k])));
}

/** `ancestorUnchanged`: whether the nearest ancestor with a correlated old value is unchanged. */
function walk(w: Walk, path: string, s: RuleSchema | undefined, v: unknown, old: unknown, root: boolean, ancestorUnchanged: boolean): void {
  if (s === undefined || v === null || v === undefined || w.budget < 0) return;
  const unchanged = old === undefined || old === null ? ancestorUnchanged : sameJsonIgnoringKeyOrder(v, old);
  evaluateRules(w, path, s, v, old, root, unchanged);
  if (w.budget < 0) return;
  if (Array.isArray(v)) {
    const items = s.items as RuleSchema | undefined;
    if (items === undefined) return;
    v.forEach((x, i) => walk(w, `${path}[${i}]`, items, x, correlatedElement(s, x, old), false, unchanged));
    return;
  }
  if (!isObj(v)) return;
  const oldObj = isObj(old) ? old : undefined;
  const additional = typeof s.additionalProperties === 'object' ? (s.additionalProperties as RuleSchema) : undefined;
  for (const [k, x] of Object.entries(v)) {
    if (w.budget < 0) return;
    if (additional !== undefined) walk(w, `${path}[${k}]`, additional, x, oldObj?.[k], false, unchanged);
    const p = s.properties?.[k] as RuleSchema | undefined;
    if (p !== undefined && !(root && (k === 'apiVersion' || k === 'kind' || k === 'metadata'))) walk(w, `${path}.${k}`, p, x, oldObj?.[k], false, unchanged);
  }
}

const HAS_RULES = new WeakMap<SchemaNode, boolean>();

/** True when the schema has a rule anywhere (remembered per schema object: a CRD's schemas do not change in place). */
export function hasRules(s: RuleSchema | undefined): boolean {
  if (s === undefined) return false;
  const hit = HAS_RULES.get(s);
  if (hit !== undefined) return hit;
  const has =
    (s['x-kubernetes-validations'] ?? []).length > 0 ||
    hasRules(s.items as RuleSchema | undefined) ||
    (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties as RuleSchema)) ||
    Object.values(s.properties ?? {}).some((p) => hasRules(p as RuleSchema));
  HAS_RULES.set(s, has);
  return has;
}

/**
 * Evaluates the schema's rules on a custom resource (`old`: the stored object on update); returns
 * the causes. Failures on values an update leaves unchanged go to `warn` instead.
 */
export function validateRules(obj: unknown, schema: SchemaNode, old: unknown, warn: (text: string) => void = () => undefined): FieldCause[] {
  const s = schema as RuleSchema;
  if (!hasRules(s)) return [];
  const w: Walk = { budget: RUNTIME_COST_BUDGET, out: [], warn };
  walk(w, '', s, obj, old, true, false);
  return w.out;
}

/** kube-apiserver's cause when type errors keep the rules from running. */
const RULES_NOT_CHECKED: FieldCause = {
  reason: 'FieldValueInvalid',
  message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};

/**
 * The rule causes to add to a custom resource's schema causes: none but a note when the schema
 * found a type error (rules need well-typed values, as in kube-apiserver), else the rules'.
 */
export function ruleCausesAfterSchema(schemaCauses: readonly FieldCause[], obj: unknown, schema: SchemaNode, old: unknown, warn?: (text: string) => void): FieldCause[] {
  if (!hasRules(schema as RuleSchema)) return [];
  if (schemaCauses.some((c) => c.message.includes(' in body must be of type '))) return [RULES_NOT_CHECKED];
  return validateRules(obj, schema, old, warn);
}
