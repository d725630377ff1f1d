/**
 * The CEL environment of the embedded server: Kubernetes' libraries (lists, sets, strings, regex,
 * quantity, URL, IP/CIDR, optionals), schema-typed values, the cost meter, compile errors worded
 * as cel-go's, and a part of the CEL conformance data run through the same environment.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, CelCompileError } from '../src/api-server/cel/compile.js';
import { PER_CALL_LIMIT } from '../src/api-server/cel/cost.js';
import { celValue } from '../src/api-server/cel/values.js';
import { crdRuleProblems } from '../src/api-server/cel/crd-rule-check.js';
import type { SchemaNode } from '../src/api-server/crd-schema.js';

function evaluate(expr: string, self?: unknown, schema?: SchemaNode): unknown {
  const c = compileExpression(expr, { variables: ['self'] });
  const r = c.evaluate(self === undefined ? {} : { self: celValue(self, schema) }, PER_CALL_LIMIT);
  if (r.type === 'error') return new Error(r.message);
  if (r.type === 'costExceeded') return 'costExceeded';
  return r.value;
}

describe('CEL-8 Kubernetes CEL libraries', () => {
  it.each([
    ['[1, 2, 3].isSorted()', true],
    ['[3, 1].isSorted()', false],
    ["['a', 'b'].isSorted()", true],
    ['[1, 2, 3].sum() == 6', true],
    ['[1.5, 2.5].sum() == 4.0', true],
    ['[3, 1, 2].min() == 1', true],
    ['[3, 1, 2].max() == 3', true],
    ['[1, 2, 1].indexOf(1) == 0', true],
    ['[1, 2, 1].lastIndexOf(1) == 2', true],
    ['[1, 2].indexOf(5) == -1', true],
    ['sets.contains([1, 2, 3], [2, 3])', true],
    ['sets.equivalent([1, 2], [2, 1, 1])', true],
    ['sets.intersects([1], [2])', false],
    ["'hello'.charAt(1) == 'e'", true],
    ["'hello'.indexOf('l') == 2", true],
    ["'hello'.lastIndexOf('l') == 3", true],
    ["'HeLLo'.lowerAscii() == 'hello'", true],
    ["'hello'.upperAscii() == 'HELLO'", true],
    ["'a-b-c'.replace('-', '.') == 'a.b.c'", true],
    ["'a,b'.split(',') == ['a', 'b']", true],
    ["'hello'.substring(1, 3) == 'el'", true],
    ["'  x '.trim() == 'x'", true],
    ["['a', 'b'].join('/') == 'a/b'", true],
    ["'%s has %d'.format(['x', 2]) == 'x has 2'", true],
    ["'abc 123 def 456'.find('[0-9]+') == '123'", true],
    ["'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']", true],
    ["'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']", true],
    ["'abc'.find('[0-9]+') == ''", true],
    ["matches('v1.2.3', 'v1\\\\.[0-3]\\\\.\\\\d+') && !matches('v2.0.0', '^v1')", true],
    ["quantity('1Gi').isGreaterThan(quantity('1000Mi'))", true],
    ["quantity('500m').isLessThan(quantity('1'))", true],
    ["quantity('1k').asInteger() == 1000", true],
    ["quantity('1.5').isInteger()", false],
    ["quantity('1Ki').add(24).asInteger() == 1048", true],
    ["quantity('1').sub(quantity('250m')).compareTo(quantity('750m')) == 0", true],
    ["quantity('200M') == quantity('0.2G')", true],
    ["isQuantity('1Gi') && !isQuantity('one')", true],
    ["quantity('-1').sign() == -1", true],
    ["url('https://example.com:8080/path?x=1&x=2').getHost() == 'example.com:8080'", true],
    ["url('https://example.com:8080/path').getHostname() == 'example.com'", true],
    ["url('https://example.com:8080/path').getPort() == '8080'", true],
    ["url('https://example.com/a%20b').getEscapedPath() == '/a%20b'", true],
    ["url('https://example.com/?x=1&x=2').getQuery()['x'] == ['1', '2']", true],
    ["url('https://[::1]:80/').getHostname() == '::1'", true],
    ["url('/absolute/path').getScheme() == ''", true],
    ["isURL('https://example.com') && !isURL('not a url') && !isURL('relative/path')", true],
    ["isIP('10.0.0.1') && isIP('::1') && !isIP('10.0.0.256') && !isIP('010.0.0.1')", true],
    ["ip('10.0.0.1').family() == 4 && ip('fe80::1').family() == 6", true],
    ["ip('127.0.0.1').isLoopback() && ip('::1').isLoopback()", true],
    ["ip('0.0.0.0').isUnspecified()", true],
    ["ip('169.254.1.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()", true],
    ["ip('8.8.8.8').isGlobalUnicast() && !ip('127.0.0.1').isGlobalUnicast()", true],
    ["ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", true],
    ["!isIP('::ffff:10.0.0.1')", true],
    ["cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", true],
    ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')", true],
    ["cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", true],
    ["cidr('10.1.2.3/8').ip() == ip('10.1.2.3') && cidr('10.0.0.0/8').prefixLength() == 8", true],
    ["cidr('2001:db8::/32').containsIP('2001:db8::1')", true],
    ["isCIDR('10.0.0.0/33') == false", true],
    ['optional.of(1).hasValue() && !optional.none().hasValue()', true],
    ['optional.none().orValue(5) == 5', true],
    ['optional.of(2).value() == 2', true],
  ])('%s', (expr, want) => {
    expect(evaluate(expr)).toEqual(want);
  });

  it('reports runtime errors as values, worded by the evaluator', () => {
    expect(evaluate('[].min()')).toBeInstanceOf(Error);
    expect(evaluate("quantity('x')")).toBeInstanceOf(Error);
    expect(evaluate("url('nope')")).toBeInstanceOf(Error);
    expect(evaluate('optional.none().value()')).toBeInstanceOf(Error);
  });
});

describe('CEL-2 schema-typed values', () => {
  const schema: SchemaNode = {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      ratio: { type: 'number' },
      port: { 'x-kubernetes-int-or-string': true },
      when: { type: 'string', format: 'date-time' },
      timeout: { type: 'string', format: 'duration' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      'dashed-name': { type: 'string' },
      namespace: { type: 'string' },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  const obj = { count: 3, ratio: 1, port: '80%', when: '2024-01-02T03:04:05Z', timeout: '1h', labels: { a: 'b' }, 'dashed-name': 'x', namespace: 'ns', free: { n: 2, f: 1.5 }, unknown: 1 };

  it.each([
    ['type(self.count) == int', true],
    ['type(self.ratio) == double', true],
    ['self.ratio == 1.0', true],
    ["type(self.port) == string ? self.port == '80%' : self.port == 80", true],
    ["self.when < timestamp('2025-01-01T00:00:00Z')", true],
    ["self.timeout > duration('30m')", true],
    ["self.labels['a'] == 'b' && 'a' in self.labels", true],
    ["self.dashed__dash__name == 'x'", true],
    ["self.__namespace__ == 'ns'", true],
    ['self.free.n == 2 && self.free.f == 1.5', true],
    ["!has(self.unknown)", true],
  ])('%s', (expr, want) => {
    expect(evaluate(expr, obj, schema)).toEqual(want);
  });

  it('types int-or-string integers as int', () => {
    expect(evaluate("type(self.port) == int && self.port == 80", { port: 80 }, schema)).toBe(true);
  });
});

describe('CEL-7 compile errors as cel-go words them', () => {
  const message = (expr: string, schema?: SchemaNode) => {
    try {
      compileExpression(expr, { variables: ['self', 'oldSelf'], schemaOf: () => schema });
      return undefined;
    } catch (e) {
      expect(e).toBeInstanceOf(CelCompileError);
      return (e as Error).message;
    }
  };
  it('undeclared variables and functions', () => {
    expect(message('slef.x > 1')).toBe("ERROR: <input>:1:1: undeclared reference to 'slef' (in container '')\n | slef.x > 1\n | ^");
    expect(message('isCIDR2(self)')).toContain("undeclared reference to 'isCIDR2' (in container '')");
    expect(message('self.all(x, x > 0) && [1].exists(y, y == 1)')).toBeUndefined();
    expect(message("optional.none().hasValue() && sets.contains([1], [1])")).toBeUndefined();
  });
  it('fields the schema does not declare', () => {
    const schema: SchemaNode = { type: 'object', properties: { replicas: { type: 'integer' }, spec: { type: 'object', properties: { a: { type: 'string' } } } } };
    expect(message('self.replicas > 0 && self.spec.a != ""', schema)).toBeUndefined();
    expect(message('self.replica > 0', schema)).toContain("undefined field 'replica'");
    expect(message('has(self.spec.b)', schema)).toContain("undefined field 'b'");
  });
  it('operands of known, incompatible types (schema-typed), as cel-go\'s checker', () => {
    const schema: SchemaNode = { type: 'object', properties: { replicas: { type: 'integer' }, ratio: { type: 'number' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, any: { 'x-kubernetes-int-or-string': true } } };
    expect(message("self.replicas == '1'", schema)).toBe("ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'\n | self.replicas == '1'\n | ..............^");
    expect(message('self.ratio == 1', schema)).toContain("found no matching overload for '_==_' applied to '(double, int)'");
    expect(message('self.name < 3', schema)).toContain("found no matching overload for '_<_' applied to '(string, int)'");
    expect(message('self.tags.all(t, t > 0)', schema)).toContain("found no matching overload for '_>_' applied to '(string, int)'");
    expect(message('self.replicas && true', schema)).toContain("expected type 'bool' but found 'int'");
    // Cross-type numeric ordering, int-or-string and unknown types pass.
    expect(message('self.ratio > 1 && self.replicas < 2.5 && self.any == 1 && self.any == "a" && self.ratio == 1.0', schema)).toBeUndefined();
  });
  it('a rule that is not a bool, a message expression that is not a string', () => {
    const rule = (expr: string, resultType: 'bool' | 'string') => {
      try {
        compileExpression(expr, { variables: ['self'], schemaOf: () => ({ type: 'integer' }), resultType });
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(rule('self + 1', 'bool')).toBe('cel expression must evaluate to a bool');
    expect(rule('self > 1', 'bool')).toBeUndefined();
    expect(rule('self', 'string')).toBe('messageExpression must evaluate to a string');
    expect(rule("'got ' + string(self)", 'string')).toBeUndefined();
  });
  it('syntax errors', () => {
    expect(message('self.x >')).toMatch(/^ERROR: <input>:1:\d+: Syntax error: /);
  });
});

describe('CEL-6 cost limits', () => {
  it('stops an expression over the per-expression limit', () => {
    const list = Array.from({ length: 2000 }, (_, i) => i);
    const schema: SchemaNode = { type: 'array', items: { type: 'integer' } };
    expect(evaluate('self.all(x, self.all(y, x + y >= 0))', list, schema)).toBe('costExceeded');
    expect(evaluate('self.all(x, x >= 0)', list, schema)).toBe(true);
  });
});

describe('CEL-7 estimated cost of CRD rules', () => {
  const spec = (items: object, rule: string) => ({
    versions: [{ schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { items: { type: 'array', ...items } }, 'x-kubernetes-validations': [{ rule }] } } } } }],
  });
  const element = (name: object) => ({ items: { type: 'object', properties: { name: { type: 'string', ...name } } } });
  it('takes cheap per-element rules over unbounded lists', () => {
    expect(crdRuleProblems(spec(element({}), "self.items.all(i, i.name.startsWith('x'))"))).toEqual([]);
  });
  it('refuses regular expressions over unbounded strings in unbounded lists, and takes them when bounded', () => {
    const refused = crdRuleProblems(spec(element({}), "self.items.all(i, i.name.matches('^[a-z]+$'))"));
    // The rule's own limit, then (being that costly) the limit of all rules of the schema.
    expect(refused.map((c) => c.message.slice(0, 50))).toEqual(['Forbidden: estimated rule cost exceeds budget by f', 'Forbidden: x-kubernetes-validations estimated rule']);
    expect(refused[0]?.field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(refused[0]?.message).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of/);
    expect(crdRuleProblems(spec({ maxItems: 100, ...element({ maxLength: 63 }) }, "self.items.all(i, i.name.matches('^[a-z]+$'))"))).toEqual([]);
  });
  it('counts list literals by their length and map keys as sharing the request (no false refusals)', () => {
    // A rule per element of nested bounded lists, with `in` over a literal list.
    const nested = {
      versions: [{ schema: { openAPIV3Schema: { type: 'object', properties: { rules: { type: 'array', maxItems: 16, items: { type: 'object', properties: { matches: { type: 'array', maxItems: 64, items: { type: 'object', properties: { kind: { type: 'string' }, value: { type: 'string', maxLength: 1024 } }, 'x-kubernetes-validations': [{ rule: "(self.kind in ['A', 'B']) ? self.value.startsWith('/') && !self.value.contains('//') : true" }] } } } } } } } } }],
    };
    expect(crdRuleProblems(nested)).toEqual([]);
    // A regular expression over the keys of a bounded map.
    const keys = { versions: [{ schema: { openAPIV3Schema: { type: 'object', properties: { labels: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 63 }, 'x-kubernetes-validations': [{ rule: "self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9][-A-Za-z0-9_.]{0,61}[A-Za-z0-9]$'))" }] } } } } }] };
    expect(crdRuleProblems(keys)).toEqual([]);
  });
  it('multiplies by how often a rule runs (rules under items)', () => {
    const nested = { versions: [{ schema: { openAPIV3Schema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(s, s.contains('a'))" }] } } } } } }] };
    expect(crdRuleProblems(nested)[0]?.field).toBe('spec.validation.openAPIV3Schema.properties[xs].items.x-kubernetes-validations[0].rule');
  });
});
