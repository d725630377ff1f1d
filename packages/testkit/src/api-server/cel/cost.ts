/**
 * Runtime cost of CEL expressions. kube-apiserver counts cel-go's runtime cost and stops an
 * expression past `PerCallLimit` (1,000,000) and a request's rules past `RuntimeCELCostBudget`
 * (10,000,000). Here the cost is counted in the same units where it grows: every expression node
 * is 1, every iteration of a comprehension costs the nodes of its step, and the list, string and
 * regex functions cost the size of what they traverse. Comprehensions are rewritten at compile
 * time (see {@link instrument}) so that an expression over budget stops iterating at once.
 */
import { celFunc, CelScalar, type CelFunc, type CelValue } from '@bufbuild/cel';
import type { Expr } from './ast.js';

/** kube-apiserver's per-expression runtime cost limit (`celconfig.PerCallLimit`). */
export const PER_CALL_LIMIT = 1_000_000;
/** kube-apiserver's runtime cost budget of all rules of one object (`celconfig.RuntimeCELCostBudget`). */
export const RUNTIME_COST_BUDGET = 10_000_000;

/** The meter of the expression being evaluated (evaluation is synchronous). */
interface Meter {
  used: number;
  readonly limit: number;
  exceeded: boolean;
}

let current: Meter | undefined;

/** Adds `n` to the running expression's cost. */
export function charge(n: number): void {
  const m = current;
  if (m === undefined) return;
  m.used += n;
  if (m.used > m.limit) m.exceeded = true;
}

/** Charges a traversal of `n` items (list, string and regex functions). */
export function chargeItems(n: number): void {
  charge(Math.max(1, Math.ceil(n)));
}

/** Runs `fn` metered with `limit`; returns its result and the cost (exceeded: over the limit). */
export function metered<T>(limit: number, fn: () => T): { value: T; cost: number; exceeded: boolean } {
  const outer = current;
  const m: Meter = { used: 0, limit, exceeded: false };
  current = m;
  try {
    const value = fn();
    return { value, cost: m.used, exceeded: m.exceeded };
  } finally {
    current = outer;
  }
}

const STEP = '@rxkube_cost_step';
const CONTINUE = '@rxkube_cost_continue';

/** The functions instrumented expressions call. */
export const COST_FUNCS: readonly CelFunc[] = [
  celFunc(STEP, [CelScalar.DYN, CelScalar.INT], CelScalar.DYN, (v: CelValue, n: bigint) => {
    charge(Number(n));
    return v;
  }),
  celFunc(CONTINUE, [CelScalar.DYN], CelScalar.DYN, (v: CelValue) => (current?.exceeded === true ? false : v)),
];

/** Number of nodes of an expression. */
export function nodeCount(e: Expr | undefined): number {
  if (e === undefined) return 0;
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return 1 + nodeCount(k.value.operand);
    case 'callExpr':
      return 1 + nodeCount(k.value.target) + k.value.args.reduce((s, a) => s + nodeCount(a), 0);
    case 'listExpr':
      return 1 + k.value.elements.reduce((s, a) => s + nodeCount(a), 0);
    case 'structExpr':
      return 1 + k.value.entries.reduce((s, x) => s + nodeCount(x.keyKind.case === 'mapKey' ? x.keyKind.value : undefined) + nodeCount(x.value), 0);
    case 'comprehensionExpr':
      return 1 + nodeCount(k.value.iterRange) + nodeCount(k.value.accuInit) + nodeCount(k.value.loopStep) + nodeCount(k.value.loopCondition) + nodeCount(k.value.result);
    default:
      return 1;
  }
}

function call(like: Expr, fn: string, args: Expr[]): Expr {
  return { ...like, exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args } } } as Expr;
}

function intConst(like: Expr, n: number): Expr {
  return { ...like, exprKind: { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'int64Value', value: BigInt(n) } } } } as Expr;
}

/**
 * Rewrites `e` (in place) so that every comprehension charges its step's node count per
 * iteration and stops iterating once the meter is exceeded.
 */
export function instrument(e: Expr | undefined): void {
  if (e === undefined) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      instrument(k.value.operand);
      return;
    case 'callExpr':
      instrument(k.value.target);
      for (const a of k.value.args) instrument(a);
      return;
    case 'listExpr':
      for (const a of k.value.elements) instrument(a);
      return;
    case 'structExpr':
      for (const x of k.value.entries) {
        if (x.keyKind.case === 'mapKey') instrument(x.keyKind.value);
        instrument(x.value);
      }
      return;
    case 'comprehensionExpr': {
      const c = k.value;
      instrument(c.iterRange);
      instrument(c.accuInit);
      instrument(c.loopStep);
      instrument(c.loopCondition);
      instrument(c.result);
      if (c.loopStep !== undefined) c.loopStep = call(c.loopStep, STEP, [c.loopStep, intConst(c.loopStep, Math.max(1, nodeCount(c.loopStep)))]);
      if (c.loopCondition !== undefined) c.loopCondition = call(c.loopCondition, CONTINUE, [c.loopCondition]);
      return;
    }
    default:
      return;
  }
}
