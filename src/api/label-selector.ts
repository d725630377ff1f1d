import { lexLabelSelector, type Token } from './label-selector-lexer.js';
import { labelKeyProblem, labelValueProblem, parseInt64 } from './label-syntax.js';
import { RxkubeError } from './rxkube-error.js';

/**
 * A malformed label selector: a syntax error, a bad key or value, a non-integer `>`/`<` bound, or a
 * bad structured operator. `reason` is the apimachinery-style explanation (what kube-apiserver puts
 * in its 400 Status); `offset` (string selectors) or `field` (structured ones) says where.
 */
export class LabelSelectorError extends RxkubeError {
  static override readonly code: string = 'API_LABEL_SELECTOR_INVALID';
  static override readonly layer = 'api';
  override name = 'LabelSelectorError';
  constructor(
    readonly selector: unknown,
    readonly reason: string,
    readonly where: { readonly offset?: number; readonly field?: string } = {},
  ) {
    const at = where.offset !== undefined ? ` at offset ${where.offset}` : where.field !== undefined ? ` at ${where.field}` : '';
    super(`invalid label selector ${JSON.stringify(selector)}${at}: ${reason}`);
  }
}

/** A set-based requirement of a {@link StructuredLabelSelector} (`metav1.LabelSelectorRequirement`). */
export interface LabelSelectorRequirement {
  readonly key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist` (any other is refused at compile time of the selector). */
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | (string & {});
  readonly values?: readonly string[];
}

/** A structured label selector (`metav1.LabelSelector`); all terms are ANDed. */
export interface StructuredLabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** Tests a label map (absent labels = `{}`). */
export type SelectorMatcher = (labels: Readonly<Record<string, string>> | undefined) => boolean;

/**
 * A requirement's operator, named as apimachinery's `selection.Operator` (`==` is read as `=`,
 * `!` is DoesNotExist, `gt`/`lt` are `>`/`<`).
 */
export type LabelOperator = 'in' | 'notin' | '=' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One parsed requirement; `values` is a set (sorted, no duplicates), empty for `exists` and `!`. */
export interface LabelRequirement {
  readonly key: string;
  readonly op: LabelOperator;
  readonly values: readonly string[];
}

/** A parsed label selector: its requirements (in written order; all must hold) and their matcher. */
export interface ParsedLabelSelector {
  readonly requirements: readonly LabelRequirement[];
  readonly matches: SelectorMatcher;
}

/**
 * Parses the label selector string syntax (`a=b,c!=d,e in (x,y),f notin (z),g,!h,n>3`) exactly as
 * Kubernetes apimachinery's `labels.Parse` does; an empty (or all-space) selector has no requirements
 * and matches everything. Facts it follows: `x in ()` is `x in ("")`, empty list items are `""`
 * (`(a,)`, `(,a)`, `(a,,)`), `==` means `=`, `x=` means `x=""`; keys and values must be valid label
 * keys and values; the `>`/`<` bound must be a base-10 int64 that is also a label value (so `x>-1` and
 * `x>+1` are errors, `x>05` is not).
 * @throws LabelSelectorError for a malformed selector, with the offset of the offending token.
 */
export function parseLabelSelector(selector: string): ParsedLabelSelector {
  if (typeof selector !== 'string') throw new LabelSelectorError(selector, 'must be a string or an object');
  return selectorOf(new Parser(selector).parse());
}

/**
 * Compiles a label selector — the string syntax of `kubectl -l` (see {@link parseLabelSelector}) or
 * a structured {@link StructuredLabelSelector} (as apimachinery's `LabelSelectorAsSelector`) — into
 * a matcher. The empty selector matches everything.
 * @throws LabelSelectorError for a malformed selector, a bad key or value, or a bad operator.
 */
export function compileLabelSelector(selector: string | StructuredLabelSelector): SelectorMatcher {
  return typeof selector === 'string' ? parseLabelSelector(selector).matches : selectorOf(fromStructured(selector)).matches;
}

/**
 * Whether one requirement holds for a label map, as apimachinery's `Requirement.Matches`: only own
 * keys count; `notin`/`!=` hold when the key is absent; `gt`/`lt` need the key present with a value
 * that parses as a base-10 int64 (`+5`, `05`, `-0` do; `5.0`, `1e0`, ints beyond int64 do not).
 */
export function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value: unknown = has ? labels[r.key] : undefined;
  switch (r.op) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return has && r.values.includes(value as string);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value as string);
    case 'gt':
    case 'lt': {
      const n = has && typeof value === 'string' ? parseInt64(value) : undefined;
      const bound = parseInt64(r.values[0] ?? '');
      if (n === undefined || bound === undefined) return false;
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

function selectorOf(requirements: readonly LabelRequirement[]): ParsedLabelSelector {
  return {
    requirements,
    matches: (labels) => {
      const l = labels ?? {};
      for (const r of requirements) if (!requirementMatches(r, l)) return false;
      return true;
    },
  };
}

/**
 * Validates a requirement as apimachinery's `NewRequirement`: the key, the value count for the
 * operator, an int64 bound for `gt`/`lt`, and every value as a label value.
 * @returns the requirement, or what is wrong with it.
 */
function newRequirement(key: string, op: LabelOperator, values: readonly string[]): LabelRequirement | string {
  const keyProblem = labelKeyProblem(key);
  if (keyProblem !== undefined) return `key: Invalid value: ${JSON.stringify(key)}: ${keyProblem}`;
  if ((op === 'in' || op === 'notin') && values.length === 0) return "values: for 'in', 'notin' operators, values set can't be empty";
  if ((op === '=' || op === '!=') && values.length !== 1) return 'values: exact-match compatibility requires one single value';
  if ((op === 'exists' || op === '!') && values.length !== 0) return 'values: values set must be empty for exists and does not exist';
  if (op === 'gt' || op === 'lt') {
    if (values.length !== 1) return "values: for 'Gt', 'Lt' operators, exactly one value is required";
    if (parseInt64(values[0] ?? '') === undefined) return `values[0]: Invalid value: ${JSON.stringify(values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`;
  }
  for (const [i, v] of values.entries()) {
    const problem = labelValueProblem(v);
    if (problem !== undefined) return `values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${problem}`;
  }
  return { key, op, values: [...new Set(values)].sort() };
}

const STRUCTURED_OPS: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

function fromStructured(sel: StructuredLabelSelector): LabelRequirement[] {
  if (sel === null || typeof sel !== 'object') throw new LabelSelectorError(sel, 'must be a string or an object');
  const out: LabelRequirement[] = [];
  const add = (r: LabelRequirement | string, field: string): void => {
    if (typeof r === 'string') throw new LabelSelectorError(sel, r, { field });
    out.push(r);
  };
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    const field = `matchLabels[${JSON.stringify(key)}]`;
    if (typeof value !== 'string') throw new LabelSelectorError(sel, 'must be a string', { field });
    add(newRequirement(key, '=', [value]), field);
  }
  for (const [i, e] of (sel.matchExpressions ?? []).entries()) {
    const field = `matchExpressions[${i}]`;
    const values: unknown = e?.values ?? [];
    if (typeof e?.key !== 'string' || !Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
      throw new LabelSelectorError(sel, 'must have a string key and an array of string values', { field });
    }
    const op = Object.prototype.hasOwnProperty.call(STRUCTURED_OPS, e.operator) ? STRUCTURED_OPS[e.operator] : undefined;
    if (op === undefined) throw new LabelSelectorError(sel, `${JSON.stringify(e.operator)} is not a valid label selector operator`, { field });
    add(newRequirement(e.key, op, values as string[]), field);
  }
  return out;
}

/** The recursive-descent parser over {@link lexLabelSelector}'s tokens. */
class Parser {
  private readonly tokens: Token[];
  private pos = 0;

  constructor(private readonly selector: string) {
    this.tokens = lexLabelSelector(selector);
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return out;
      if (t.kind !== 'id' && t.kind !== '!') throw this.fail(t, "expected: !, identifier, or 'end of string'");
      out.push(this.requirement());
      const sep = this.next();
      if (sep.kind === 'end') return out;
      if (sep.kind !== ',') throw this.fail(sep, "expected: ',' or 'end of string'");
      const after = this.peek();
      if (after.kind !== 'id' && after.kind !== '!') throw this.fail(after, "expected: identifier after ','");
    }
  }

  /** `[!] KEY [op VALUE | in/notin (VALUES)]`; a bare key is `exists`, `!key` is `!` whatever follows. */
  private requirement(): LabelRequirement {
    let t = this.next();
    const negated = t.kind === '!';
    if (negated) t = this.next();
    if (t.kind !== 'id') throw this.fail(t, 'expected: identifier', true);
    const key = t.text;
    const keyProblem = labelKeyProblem(key);
    if (keyProblem !== undefined) throw this.fail(t, `key: Invalid value: ${JSON.stringify(key)}: ${keyProblem}`, true, false);
    const follow = this.peek().kind;
    if (negated || follow === 'end' || follow === ',') return this.checked(t, newRequirement(key, negated ? '!' : 'exists', []));
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : [this.exactValue()];
    return this.checked(t, newRequirement(key, op, values));
  }

  private operator(): LabelOperator {
    const t = this.next(false);
    switch (t.kind) {
      case 'in':
      case 'notin':
      case '!=':
      case '=':
        return t.kind;
      case '==':
        return '=';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw this.fail(t, 'expected: in, notin, =, ==, !=, gt, lt', true);
    }
  }

  /** `( VALUE? (, VALUE?)* )`: `()` and every empty item stand for `""`. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw this.fail(open, `found '${open.text}' expected: '('`, true, false);
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return [''];
    }
    if (first.kind !== 'id' && first.kind !== ',') throw this.fail(first, "expected: ',', ')' or identifier", true);
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'id') {
        values.push(t.text);
        const after = this.peek();
        if (after.kind === ')') break;
        if (after.kind !== ',') throw this.fail(after, "expected: ',' or ')'", true);
      } else if (t.kind === ',') {
        if (values.length === 0) values.push('');
        const after = this.peek().kind;
        if (after === ')' || after === ',') values.push('');
        if (after === ')') break;
      } else {
        throw this.fail(t, "expected: ',', or identifier", true);
      }
    }
    this.next(); // the ')'
    return values;
  }

  /** A value after `=`, `==`, `!=`, `>`, `<`; nothing before `,` or the end is `""`. */
  private exactValue(): string {
    const ahead = this.peek().kind;
    if (ahead === 'end' || ahead === ',') return '';
    const t = this.next();
    if (t.kind !== 'id') throw this.fail(t, 'expected: identifier', true);
    return t.text;
  }

  /** The next token; `in`/`notin` read as identifiers except where an operator is expected. */
  private next(values = true): Token {
    const t = this.peek(values);
    this.pos++;
    return t;
  }

  private peek(values = true): Token {
    const t = this.tokens[Math.min(this.pos, this.tokens.length - 1)] as Token;
    return values && (t.kind === 'in' || t.kind === 'notin') ? { ...t, kind: 'id' } : t;
  }

  private checked(at: Token, r: LabelRequirement | string): LabelRequirement {
    if (typeof r === 'string') throw this.fail(at, r, true, false);
    return r;
  }

  private fail(t: Token, what: string, inRequirement = false, found = true): LabelSelectorError {
    const detail = found ? `found '${t.text}', ${what}` : what;
    return new LabelSelectorError(this.selector, inRequirement ? `unable to parse requirement: ${detail}` : detail, { offset: t.at });
  }
}
