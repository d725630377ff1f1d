/**
 * A small type inference over CEL expressions, enough to refuse what cel-go's checker refuses in
 * the common cases without a full checker: operators applied to operands of known, incompatible
 * types (`found no matching overload for '_==_' applied to '(double, int)'`). Types come from
 * literals, from the structural schema of `self`/`oldSelf` (integer → int, number → double, …), from
 * comprehension variables over typed lists, and from functions whose result type is fixed. Anything
 * else is `dyn`, and an operand of type `dyn` (or containing one, or an object) is never flagged,
 * so the check only refuses what cel-go would refuse too. Ordering accepts int, uint and double
 * across types, as Kubernetes' environment (cross-type numeric comparisons) does.
 */
import type { Expr } from './ast.js';
import type { SchemaNode } from '../crd-schema.js';
import { escapeCelName } from './values.js';

/** A CEL type as cel-go prints it, with the schema node behind it when it came from one. */
interface Type {
  readonly name: string;
  readonly schema?: SchemaNode;
  readonly element?: Type;
}

const DYN: Type = { name: 'dyn' };
const BOOL: Type = { name: 'bool' };
const INT: Type = { name: 'int' };
const STRING: Type = { name: 'string' };
const DOUBLE: Type = { name: 'double' };
const UINT: Type = { name: 'uint' };

const NUMERIC = new Set(['int', 'uint', 'double']);
const ORDERED = new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);

function list(element: Type): Type {
  return { name: `list(${element.name})`, element };
}

/** The CEL type of values under schema `s`. */
export function schemaType(s: SchemaNode | undefined): Type {
  if (s === undefined || s['x-kubernetes-int-or-string'] === true) return DYN;
  switch (s.type) {
    case 'integer':
      return INT;
    case 'number':
      return DOUBLE;
    case 'boolean':
      return BOOL;
    case 'string':
      if (s.format === 'date-time' || s.format === 'date') return { name: 'google.protobuf.Timestamp' };
      if (s.format === 'duration') return { name: 'google.protobuf.Duration' };
      if (s.format === 'byte') return DYN;
      return STRING;
    case 'array':
      return s.items === undefined ? DYN : list(schemaType(s.items));
    case 'object':
      if (s.properties !== undefined) return { name: 'object', schema: s };
      if (typeof s.additionalProperties === 'object') {
        const v = schemaType(s.additionalProperties);
        return { name: `map(string, ${v.name})`, element: v, schema: s };
      }
      return DYN;
    default:
      return DYN;
  }
}

function known(t: Type): boolean {
  return !t.name.includes('dyn') && !t.name.includes('object') && !t.name.includes('null_type');
}

const FIXED: Readonly<Record<string, Type>> = {
  size: INT, int: INT, uint: UINT, double: DOUBLE, string: STRING, bool: BOOL,
  contains: BOOL, startsWith: BOOL, endsWith: BOOL, matches: BOOL,
  lowerAscii: STRING, upperAscii: STRING, trim: STRING, replace: STRING, substring: STRING, charAt: STRING, join: STRING, format: STRING, find: STRING,
  indexOf: INT, lastIndexOf: INT, isSorted: BOOL, isQuantity: BOOL, isURL: BOOL, isIP: BOOL, isCIDR: BOOL, hasValue: BOOL,
  '!_': BOOL, '_&&_': BOOL, '_||_': BOOL, '_==_': BOOL, '_!=_': BOOL, '_<_': BOOL, '_<=_': BOOL, '_>_': BOOL, '_>=_': BOOL, '@in': BOOL,
};

/** A type problem: where (source offset of the expression) and cel-go's words. */
export interface TypeProblem {
  readonly exprId: bigint;
  readonly message: string;
}

/** Infers types in `e` (`self`/`oldSelf` typed by `schema`); returns the problems and the result type's name. */
export function checkTypes(e: Expr, schema: SchemaNode | undefined): { problems: TypeProblem[]; result: string } {
  const problems: TypeProblem[] = [];
  const vars = new Map<string, Type>([['self', schema === undefined ? DYN : schemaType(schema)], ['oldSelf', schema === undefined ? DYN : schemaType(schema)]]);
  const overload = (x: Expr, fn: string, types: readonly Type[]) => {
    problems.push({ exprId: x.id, message: `found no matching overload for '${fn}' applied to '(${types.map((t) => t.name).join(', ')})'` });
  };
  const infer = (x: Expr | undefined, scope: ReadonlyMap<string, Type>): Type => {
    if (x === undefined) return DYN;
    const k = x.exprKind;
    switch (k.case) {
      case 'constExpr':
        switch (k.value.constantKind.case) {
          case 'int64Value':
            return INT;
          case 'uint64Value':
            return UINT;
          case 'doubleValue':
            return DOUBLE;
          case 'stringValue':
            return STRING;
          case 'boolValue':
            return BOOL;
          case 'bytesValue':
            return { name: 'bytes' };
          case 'nullValue':
            return { name: 'null_type' };
          default:
            return DYN;
        }
      case 'identExpr':
        return scope.get(k.value.name) ?? DYN;
      case 'selectExpr': {
        const operand = infer(k.value.operand, scope);
        if (k.value.testOnly) return BOOL;
        if (operand.name === 'object' && operand.schema !== undefined) {
          for (const [name, p] of Object.entries(operand.schema.properties ?? {})) if (escapeCelName(name) === k.value.field) return schemaType(p);
          return DYN;
        }
        if (operand.name.startsWith('map(') && operand.element !== undefined) return operand.element;
        return DYN;
      }
      case 'listExpr': {
        const elements = k.value.elements.map((el) => infer(el, scope));
        const first = elements[0];
        if (first === undefined) return list(DYN);
        return elements.every((t) => t.name === first.name) ? list(first) : list(DYN);
      }
      case 'structExpr':
        for (const entry of k.value.entries) infer(entry.value, scope);
        return DYN;
      case 'comprehensionExpr': {
        const c = k.value;
        const range = infer(c.iterRange, scope);
        const inner = new Map(scope);
        inner.set(c.iterVar, range.name.startsWith('list(') && range.element !== undefined ? range.element : range.name.startsWith('map(') ? STRING : DYN);
        const accu = infer(c.accuInit, scope);
        inner.set(c.accuVar, accu.name === 'bool' ? BOOL : DYN);
        infer(c.loopCondition, inner);
        infer(c.loopStep, inner);
        const result = infer(c.result, inner);
        return accu.name === 'bool' && result.name === 'bool' ? BOOL : DYN;
      }
      case 'callExpr': {
        const fn = k.value.function;
        const target = k.value.target !== undefined ? infer(k.value.target, scope) : undefined;
        const args = k.value.args.map((a) => infer(a, scope));
        const [a, b] = args;
        if (a !== undefined && b !== undefined && known(a) && known(b)) {
          if ((fn === '_==_' || fn === '_!=_') && a.name !== b.name) overload(x, fn, args);
          else if (['_<_', '_<=_', '_>_', '_>=_'].includes(fn) && !(NUMERIC.has(a.name) && NUMERIC.has(b.name)) && (a.name !== b.name || !ORDERED.has(a.name))) overload(x, fn, args);
          else if (['_-_', '_*_', '_/_', '_%_'].includes(fn) && NUMERIC.has(a.name) && NUMERIC.has(b.name) && a.name !== b.name) overload(x, fn, args);
          else if (fn === '_+_' && a.name !== b.name && [a, b].every((t) => NUMERIC.has(t.name) || t.name === 'string' || t.name === 'bytes')) overload(x, fn, args);
        }
        if (fn === '_&&_' || fn === '_||_') {
          k.value.args.forEach((operand, i) => {
            const t = args[i] ?? DYN;
            if (known(t) && t.name !== 'bool') problems.push({ exprId: operand.id, message: `expected type 'bool' but found '${t.name}'` });
          });
        }
        if (fn === '_[_]' && a !== undefined) return (a.name.startsWith('list(') || a.name.startsWith('map(')) && a.element !== undefined ? a.element : DYN;
        if (fn === '_?_:_') return args[1] !== undefined && args[2] !== undefined && args[1].name === args[2].name ? args[1] : DYN;
        if (fn === '_+_' && a !== undefined && b !== undefined && a.name === b.name && known(a)) return a;
        if (['_-_', '_*_', '_/_', '_%_'].includes(fn) && a !== undefined && b !== undefined && a.name === b.name && NUMERIC.has(a.name)) return a;
        if (fn === '-_' && a !== undefined && NUMERIC.has(a.name)) return a;
        if ((fn === 'split' || fn === 'findAll') && target?.name === 'string') return list(STRING);
        return FIXED[fn] ?? DYN;
      }
      default:
        return DYN;
    }
  };
  const result = infer(e, vars);
  return { problems, result: result.name };
}
