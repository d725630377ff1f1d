/**
 * Static cost estimate of a CRD validation rule, as kube-apiserver makes one when a CRD is
 * created or updated (and refuses the CRD above `StaticEstimatedCostLimit`, 10,000,000 per rule
 * times the number of times the rule can run, and `StaticEstimatedCRDCostLimit`, 100,000,000 for
 * all rules of a schema). The estimate follows cel-go's in spirit, not to the unit: every node
 * costs 1, a comprehension costs its range's largest size times its step, functions that
 * traverse a list cost its largest size and a string a tenth of its length (`startsWith`/`endsWith`
 * a tenth of the argument's, `contains` the product of both tenths, regular expressions the
 * string's tenth times a quarter of the pattern's length), string literals their length. Largest
 * sizes come from `maxItems`, `maxProperties` and `maxLength`; without them from the largest
 * request body (3 MiB) divided by the smallest serialized element, as kube-apiserver does.
 */
import type { Expr } from './ast.js';
import type { SchemaNode } from '../crd-schema.js';
import { escapeCelName } from './values.js';

/** kube-apiserver's per-rule static limit. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** kube-apiserver's limit for all rules of one schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

function minSerializedSize(s: SchemaNode | undefined): number {
  switch (s?.type) {
    case 'string':
      return 2 + (s.minLength ?? 0);
    case 'object':
    case 'array':
      return 2;
    case 'integer':
    case 'number':
    case 'boolean':
      return 1;
    default:
      return 1;
  }
}

/** The largest number of elements (lists, maps) or characters (strings) `s` can hold. */
export function maxSize(s: SchemaNode | undefined): number {
  if (s === undefined) return MAX_REQUEST_BYTES;
  if (s.type === 'array') return s.maxItems ?? Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(s.items) + 1));
  if (s.type === 'object') {
    if (s.maxProperties !== undefined) return s.maxProperties;
    if (typeof s.additionalProperties === 'object') return Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(s.additionalProperties) + 4));
    return Object.keys(s.properties ?? {}).length;
  }
  if (s.type === 'string') return s.maxLength ?? MAX_REQUEST_BYTES - 2;
  return 1;
}

function elementOf(s: SchemaNode | undefined): SchemaNode | undefined {
  if (s === undefined) return undefined;
  if (s.type === 'array') return s.items;
  if (s.type === 'object' && typeof s.additionalProperties === 'object') return { type: 'string' };
  return undefined;
}

/** Functions that traverse their receiver once (cel-go's string traversal factor applies to strings). */
const TRAVERSING = new Set(['split', 'replace', 'lowerAscii', 'upperAscii', 'trim', 'indexOf', 'lastIndexOf', 'join', 'isSorted', 'sum', 'min', 'max', 'substring', 'format', 'charAt', '@in']);
/** Functions matching a regular expression against their receiver. */
const REGEX = new Set(['matches', 'find', 'findAll']);
const STRING_FACTOR = 0.1;
const REGEX_FACTOR = 0.25;

/** Estimated largest cost of `e` with `self`/`oldSelf` typed by `schema`. */
export function estimateCost(e: Expr, schema: SchemaNode): number {
  const schemaOf = (x: Expr | undefined, vars: ReadonlyMap<string, SchemaNode | undefined>): SchemaNode | undefined => {
    if (x === undefined) return undefined;
    if (x.exprKind.case === 'identExpr') return vars.get(x.exprKind.value.name);
    if (x.exprKind.case === 'selectExpr' && !x.exprKind.value.testOnly) {
      const parent = schemaOf(x.exprKind.value.operand, vars);
      const field = x.exprKind.value.field;
      for (const [k, p] of Object.entries(parent?.properties ?? {})) if (escapeCelName(k) === field) return p;
      if (typeof parent?.additionalProperties === 'object') return parent.additionalProperties;
    }
    if (x.exprKind.case === 'callExpr' && x.exprKind.value.function === '_[_]') {
      return elementOf(schemaOf(x.exprKind.value.args[0], vars));
    }
    return undefined;
  };
  const sizeOf = (x: Expr | undefined, vars: ReadonlyMap<string, SchemaNode | undefined>): number => {
    if (x?.exprKind.case === 'constExpr' && x.exprKind.value.constantKind.case === 'stringValue') return x.exprKind.value.constantKind.value.length;
    if (x?.exprKind.case === 'listExpr') return x.exprKind.value.elements.length;
    if (x?.exprKind.case === 'identExpr' && keyLength.has(x.exprKind.value.name)) return keyLength.get(x.exprKind.value.name) ?? MAX_REQUEST_BYTES;
    return maxSize(schemaOf(x, vars));
  };
  /** Iteration variables over map keys, with the longest a key can be (all keys share the request). */
  const keyLength = new Map<string, number>();
  const cost = (x: Expr | undefined, vars: ReadonlyMap<string, SchemaNode | undefined>): number => {
    if (x === undefined) return 0;
    const k = x.exprKind;
    switch (k.case) {
      case 'selectExpr':
        return 1 + cost(k.value.operand, vars);
      case 'callExpr': {
        const fn = k.value.function;
        const c = 1 + cost(k.value.target, vars) + k.value.args.reduce((s, a) => s + cost(a, vars), 0);
        // `x in list` traverses its second argument; methods their target; functions their first argument.
        const receiver = fn === '@in' ? k.value.args[1] : (k.value.target ?? k.value.args[0]);
        const arg = k.value.target !== undefined ? k.value.args[0] : k.value.args[1];
        const stringCost = (e: Expr | undefined) => Math.ceil(sizeOf(e, vars) * STRING_FACTOR);
        if (fn === 'startsWith' || fn === 'endsWith') return c + stringCost(arg);
        if (fn === 'contains') return c + stringCost(receiver) * stringCost(arg);
        if (REGEX.has(fn)) return c + stringCost(receiver) * Math.ceil(sizeOf(arg, vars) * REGEX_FACTOR);
        if (TRAVERSING.has(fn)) {
          const target = schemaOf(receiver, vars);
          if (target !== undefined && target.type !== 'string') return c + maxSize(target);
          return c + (receiver?.exprKind.case === 'listExpr' ? sizeOf(receiver, vars) : stringCost(receiver));
        }
        return c;
      }
      case 'listExpr':
        return 1 + k.value.elements.reduce((s, a) => s + cost(a, vars), 0);
      case 'structExpr':
        return 1 + k.value.entries.reduce((s, a) => s + cost(a.value, vars), 0);
      case 'comprehensionExpr': {
        const c = k.value;
        const range = schemaOf(c.iterRange, vars);
        const n = maxSize(range);
        const inner = new Map(vars);
        inner.set(c.iterVar, elementOf(range));
        if (range?.type === 'object') keyLength.set(c.iterVar, Math.ceil(MAX_REQUEST_BYTES / Math.max(1, n)));
        else keyLength.delete(c.iterVar);
        inner.set(c.accuVar, undefined);
        return 1 + cost(c.iterRange, vars) + cost(c.accuInit, vars) + n * (cost(c.loopStep, inner) + cost(c.loopCondition, inner)) + cost(c.result, inner);
      }
      default:
        return 1;
    }
  };
  return cost(e, new Map([['self', schema], ['oldSelf', schema]]));
}

/** kube-apiserver's wording of a factor: `1.048576x`. */
export function costFactor(cost: number, limit: number): string {
  return `${Number((cost / limit).toPrecision(7))}x`;
}
