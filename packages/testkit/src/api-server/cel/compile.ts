/**
 * Compiles a CEL expression for the embedded API server: parses it, checks what kube-apiserver's
 * type checker would refuse and can be known without types (undeclared variables and functions,
 * fields a structural schema does not declare), instruments it for the cost meter and plans it.
 * Errors read as cel-go's (`ERROR: <input>:1:6: undeclared reference to 'slef' (in container '')`,
 * followed by the source line and a caret).
 */
import { isCelError, parse, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import { RxkubeError, type ErrorLayer } from 'rxkube';
import type { Expr, ParsedExpr } from './ast.js';
import type { SchemaNode } from '../crd-schema.js';
import { instrument, metered, nodeCount } from './cost.js';
import { KNOWN_FUNCTIONS, kubernetesCelEnv } from './library.js';
import { checkTypes } from './types.js';
import { escapeCelName } from './values.js';

/** What an expression may reference: variable names, and the schema of those typed by one. */
export interface CompileScope {
  readonly variables: readonly string[];
  /** Schema of a variable (fields selected from it are checked against its properties). */
  readonly schemaOf?: (variable: string) => SchemaNode | undefined;
  /** The type the expression must have when it can be known (a rule: bool; a message expression: string). */
  readonly resultType?: 'bool' | 'string';
}

/** The outcome of one evaluation. */
export type Evaluation =
  | { readonly type: 'value'; readonly value: CelValue; readonly cost: number }
  | { readonly type: 'error'; readonly message: string; readonly cost: number }
  | { readonly type: 'costExceeded'; readonly cost: number };

/** A compiled expression. */
export interface CompiledExpression {
  readonly source: string;
  /** Variables it references (e.g. whether a rule uses `oldSelf`). */
  readonly references: ReadonlySet<string>;
  /** Node count: the static part of its cost. */
  readonly nodes: number;
  /** The parsed (uninstrumented) expression, for cost estimation. */
  readonly expr: Expr;
  evaluate(bindings: Record<string, CelInput>, limit: number): Evaluation;
}

/**
 * A CEL expression of a CRD rule or an admission policy that does not compile, worded as cel-go's;
 * the embedded API server answers it as a 422 on the object that carries the expression.
 */
export class CelCompileError extends RxkubeError {
  static override readonly code: string = 'TESTING_CEL_COMPILE';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'CelCompileError';
  constructor(
    message: string,
    /** True for a result of the wrong type (kube-apiserver reports it without `compilation failed: `). */
    readonly wrongResultType = false,
  ) {
    super(message);
  }
}

function location(source: string, offset: number): { line: number; column: number; text: string } {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const start = before.lastIndexOf('\n') + 1;
  const end = source.indexOf('\n', start);
  return { line, column: offset - start, text: source.slice(start, end < 0 ? undefined : end) };
}

function issue(source: string, offset: number, message: string): string {
  const loc = location(source, offset);
  return `ERROR: <input>:${loc.line}:${loc.column + 1}: ${message}\n | ${loc.text}\n | ${'.'.repeat(loc.column)}^`;
}

function qualifiedName(e: Expr | undefined): string | undefined {
  if (e === undefined) return undefined;
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly) {
    const head = qualifiedName(e.exprKind.value.operand);
    return head === undefined ? undefined : `${head}.${e.exprKind.value.field}`;
  }
  return undefined;
}

/** The schema node `e` denotes when it is a chain of field selections from a typed variable. */
function schemaOfSelection(e: Expr | undefined, scope: CompileScope, bound: ReadonlySet<string>): SchemaNode | undefined {
  if (e === undefined) return undefined;
  if (e.exprKind.case === 'identExpr') return bound.has(e.exprKind.value.name) ? undefined : scope.schemaOf?.(e.exprKind.value.name);
  if (e.exprKind.case === 'selectExpr') {
    const parent = schemaOfSelection(e.exprKind.value.operand, scope, bound);
    const props = parent?.properties;
    if (props === undefined) return undefined;
    for (const [k, p] of Object.entries(props)) if (escapeCelName(k) === e.exprKind.value.field) return p;
  }
  return undefined;
}

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Type names an expression may use as values (`type(x) == int`). */
const TYPE_NAMES = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);

function check(parsed: ParsedExpr, source: string, scope: CompileScope): { problems: string[]; references: Set<string> } {
  const problems: string[] = [];
  const references = new Set<string>();
  const positions = parsed.sourceInfo?.positions ?? {};
  const at = (e: Expr) => positions[String(e.id)] ?? 0;
  const visit = (e: Expr | undefined, bound: ReadonlySet<string>): void => {
    if (e === undefined) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (bound.has(k.value.name) || TYPE_NAMES.has(k.value.name)) return;
        if (scope.variables.includes(k.value.name)) references.add(k.value.name);
        else problems.push(issue(source, at(e), `undeclared reference to '${k.value.name}' (in container '')`));
        return;
      case 'selectExpr': {
        const parent = schemaOfSelection(k.value.operand, scope, bound);
        const declared = parent?.properties !== undefined && Object.keys(parent.properties).some((p) => escapeCelName(p) === k.value.field);
        const open = parent?.['x-kubernetes-preserve-unknown-fields'] === true || parent?.['x-kubernetes-embedded-resource'] === true;
        const rootField = k.value.operand?.exprKind.case === 'identExpr' && ROOT_FIELDS.has(k.value.field);
        if (parent?.properties !== undefined && !declared && !open && !rootField) problems.push(issue(source, at(e), `undefined field '${k.value.field}'`));
        visit(k.value.operand, bound);
        return;
      }
      case 'callExpr': {
        const fn = k.value.function;
        const qualified = k.value.target !== undefined ? qualifiedName(k.value.target) : undefined;
        const isQualifiedCall = qualified !== undefined && KNOWN_FUNCTIONS.has(`${qualified}.${fn}`) && !bound.has(qualified.split('.')[0] ?? '') && !scope.variables.includes(qualified.split('.')[0] ?? '');
        // cel-go places a call at its opening parenthesis.
        const open = source.indexOf('(', at(e));
        if (/^[A-Za-z]/.test(fn) && !KNOWN_FUNCTIONS.has(fn) && !isQualifiedCall) problems.push(issue(source, open < 0 ? at(e) : open, `undeclared reference to '${fn}' (in container '')`));
        if (!isQualifiedCall) visit(k.value.target, bound);
        for (const a of k.value.args) visit(a, bound);
        return;
      }
      case 'listExpr':
        for (const x of k.value.elements) visit(x, bound);
        return;
      case 'structExpr':
        for (const x of k.value.entries) {
          if (x.keyKind.case === 'mapKey') visit(x.keyKind.value, bound);
          visit(x.value, bound);
        }
        return;
      case 'comprehensionExpr': {
        const c = k.value;
        visit(c.iterRange, bound);
        visit(c.accuInit, bound);
        const inner = new Set([...bound, c.iterVar, c.accuVar, ...(c.iterVar2 !== '' ? [c.iterVar2] : [])]);
        visit(c.loopCondition, inner);
        visit(c.loopStep, inner);
        visit(c.result, new Set([...bound, c.accuVar]));
        return;
      }
      default:
        return;
    }
  };
  visit(parsed.expr, new Set());
  return { problems, references };
}

function parseError(source: string, e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const m = /^<input>:(\d+):(\d+): (.*)$/s.exec(text);
  if (m === null) return `ERROR: <input>:1:1: Syntax error: ${text}`;
  const lines = source.split('\n');
  const line = Number(m[1]);
  const column = Math.max(0, Number(m[2]) - 1);
  return `ERROR: <input>:${line}:${column + 1}: Syntax error: ${m[3] ?? ''}\n | ${lines[line - 1] ?? ''}\n | ${'.'.repeat(column)}^`;
}

/** Compiles `source`; throws {@link CelCompileError} with cel-go's wording. */
export function compileExpression(source: string, scope: CompileScope): CompiledExpression {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (e) {
    throw new CelCompileError(parseError(source, e));
  }
  const { problems, references } = check(parsed, source, scope);
  if (problems.length > 0) throw new CelCompileError(problems.join('\n'));
  const types = checkTypes(parsed.expr, scope.schemaOf?.('self'));
  const positions = parsed.sourceInfo?.positions ?? {};
  // The parser places an operator at the blank before it; cel-go at the operator.
  const operatorAt = (offset: number) => offset + (/^\s*/.exec(source.slice(offset))?.[0].length ?? 0);
  if (types.problems.length > 0) throw new CelCompileError(types.problems.map((p) => issue(source, operatorAt(positions[String(p.exprId)] ?? 0), p.message)).join('\n'));
  if (scope.resultType !== undefined && types.result !== 'dyn' && !types.result.includes('object') && types.result !== scope.resultType) {
    throw new CelCompileError(scope.resultType === 'bool' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string', true);
  }
  const original = structuredClone(parsed.expr);
  instrument(parsed.expr);
  const run = plan(kubernetesCelEnv(), parsed);
  const nodes = nodeCount(original);
  return {
    source,
    references,
    nodes,
    expr: original,
    evaluate(bindings, limit) {
      const r = metered(limit, () => run(bindings));
      const cost = r.cost + nodes;
      if (r.exceeded || cost > limit) return { type: 'costExceeded', cost };
      if (isCelError(r.value)) return { type: 'error', message: r.value.message, cost };
      return { type: 'value', value: r.value, cost };
    },
  };
}

/** A runtime error as cel-go words it (`no such key: x`, `no such overload`, …). */
export function celErrorText(message: string): string {
  const field = /^field not found: (.*)$/.exec(message);
  if (field !== null) return `no such key: ${field[1] ?? ''}`;
  if (message.startsWith('found no matching overload') || message.startsWith('no such overload')) return 'no such overload';
  if (message === 'unresolved attribute') return 'no such attribute';
  if (/divide by zero$/.test(message)) return 'division by zero';
  if (/modulus by zero$/.test(message)) return 'modulus by zero';
  return message;
}
