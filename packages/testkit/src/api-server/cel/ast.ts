/** The CEL syntax tree as @bufbuild/cel's parser gives it (its types, without naming the package that defines them). */
import type { parse } from '@bufbuild/cel';

/** A parsed expression with its source info. */
export type ParsedExpr = ReturnType<typeof parse>;
/** One node of the tree. */
export type Expr = ParsedExpr['expr'];
