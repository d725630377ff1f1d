import { describe, expect, it } from 'vitest';
import { compileLabelSelector, LabelSelectorError, parseLabelSelector } from '../../src/api/label-selector.js';
import { parseInt64 } from '../../src/api/label-syntax.js';
import { InformerConfigError } from '../../src/informer/informer-errors.js';
import { labelMatcher } from '../../src/informer/label-selector.js';
import { requestLabelSelector } from '../../packages/testkit/src/api-server/request-selectors.js';
import { StatusError } from '../../packages/testkit/src/api-server/status-error.js';

/**
 * The one label selector parser (client, informer listers, embedded API server) against facts of
 * Kubernetes apimachinery's `labels.Parse` / `Requirement.Matches` (1.35), each checked against it.
 */

type Labels = Record<string, string>;

/** What every user of the parser does with `selector` on `labels`: a match result, or 'error'. */
function everywhere(selector: string, labels: Labels): { client: boolean | 'error'; informer: boolean | 'error'; server: boolean | 'error' } {
  const attempt = (f: () => (l: Labels) => boolean, type: new (...args: never[]) => Error): boolean | 'error' => {
    let m: (l: Labels) => boolean;
    try {
      m = f();
    } catch (e) {
      expect(e).toBeInstanceOf(type);
      return 'error';
    }
    return m(labels);
  };
  return {
    client: attempt(() => compileLabelSelector(selector), LabelSelectorError),
    informer: attempt(() => labelMatcher(selector), InformerConfigError),
    server: attempt(() => requestLabelSelector(selector).matches, StatusError),
  };
}

function same(selector: string, labels: Labels, want: boolean | 'error'): void {
  expect(everywhere(selector, labels), `${JSON.stringify(selector)} on ${JSON.stringify(labels)}`).toEqual({ client: want, informer: want, server: want });
}

describe('label selector: apimachinery syntax facts', () => {
  const valid = [
    '', ' \t\r\n', 'x', '!x', '! x', 'x=', 'x==', 'x!=', 'x=a', 'x==a', 'x in (a)', 'x notin(a)',
    'x in ()', 'x notin ()', 'x in (,)', 'x in (,,)', 'x in (a,)', 'x in (,a)', 'x in (a,,)', 'x in (a,,,)',
    'in', 'notin', 'in in (in)', 'x=in', 'x>3', 'x<3', 'x>05', 'x>0', 'x>9223372036854775807',
    'k8s.io/x=a', 'x=a,y!=b,z in (c),!w', 'a\u0000', '\u0000garbage((', 'a=\u0000b', 'a=b\u0000,c',
  ];
  const invalid = [
    ',', 'x,', ',x', 'x,,y', '!', '!!x', '!x=b', '=b', 'x===', 'x=a b', 'a==b==c', 'a)', 'x in', 'x in (', 'x in (a b)',
    'x in (a', 'xin (a)', 'x=(', 'x=)', 'a\u0000b', 'x\u00a0', 'x=a\f',
    'x>', 'x<', 'x>a', 'x>-1', 'x>+1', 'x>-0', 'x>5.0', 'x>1e0', 'x> 3 4', 'x>9223372036854775808', 'x<-9223372036854775808',
    '-a=b', 'a-=b', 'a/b/c', '/a', 'A.io/x', 'x=-a', `x=${'v'.repeat(64)}`, `${'k'.repeat(64)}`, `${'p'.repeat(254)}/x`,
  ];
  for (const s of valid) it(`${JSON.stringify(s)} parses everywhere`, () => expect(Object.values(everywhere(s, {}))).not.toContain('error'));
  for (const s of invalid) it(`${JSON.stringify(s)} is an error everywhere`, () => same(s, {}, 'error'));

  it('`x in ()` is `x in ("")`, empty list items are "", values are a sorted set', () => {
    expect(parseLabelSelector('x in ()').requirements).toEqual([{ key: 'x', op: 'in', values: [''] }]);
    expect(parseLabelSelector('x notin ()').requirements).toEqual([{ key: 'x', op: 'notin', values: [''] }]);
    expect(parseLabelSelector('x in (b,,a,b,)').requirements).toEqual([{ key: 'x', op: 'in', values: ['', 'a', 'b'] }]);
    expect(parseLabelSelector('x in (a,b)').requirements).toEqual([{ key: 'x', op: 'in', values: ['a', 'b'] }]);
    expect(parseLabelSelector('x==a,!y,z').requirements).toEqual([
      { key: 'x', op: '=', values: ['a'] },
      { key: 'y', op: '!', values: [] },
      { key: 'z', op: 'exists', values: [] },
    ]);
  });

  it('errors say what failed and where', () => {
    const err = (s: string): LabelSelectorError => {
      try {
        parseLabelSelector(s);
      } catch (e) {
        if (e instanceof LabelSelectorError) return e;
        throw e;
      }
      throw new Error(`${s} parsed`);
    };
    expect(err('a=b,x in (a b)')).toMatchObject({ reason: "unable to parse requirement: found 'b', expected: ',' or ')'", where: { offset: 12 } });
    expect(err('x,')).toMatchObject({ reason: "found '', expected: identifier after ','", where: { offset: 2 } });
    expect(err('a=b,x>1.5').message).toBe(
      `invalid label selector "a=b,x>1.5" at offset 4: unable to parse requirement: values[0]: Invalid value: "1.5": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    expect(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok'] }, { key: 'b', operator: 'In' }] })).toThrow(
      expect.objectContaining({ where: { field: 'matchExpressions[1]' } }),
    );
  });

  it('the server answers a malformed selector with a 400 BadRequest carrying the parse error', () => {
    try {
      requestLabelSelector('x>5.0');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StatusError);
      expect((e as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest', message: expect.stringMatching(/^unable to parse requirement: .*must be an integer$/) });
    }
    expect(requestLabelSelector(null).requirements).toEqual([]);
  });
});

describe('label selector: apimachinery matching facts', () => {
  it('regression: x>3 does not match {x: "5.0"} (the label must be a strict base-10 int64)', () => {
    same('x>3', { x: '5.0' }, false);
    same('x<9', { x: '5.0' }, false);
    same('x>3', { x: '1e1' }, false);
    same('x>3', { x: ' 5' }, false);
    same('x>3', { x: '0x5' }, false);
    same('x>3', { x: '5_0' }, false);
    same('x>3', { x: '' }, false);
    same('x>3', {}, false);
  });

  it('Go ParseInt accepts a sign and leading zeros in the label value, within int64', () => {
    same('x>3', { x: '5' }, true);
    same('x>3', { x: '+5' }, true);
    same('x>3', { x: '05' }, true);
    same('x<1', { x: '-0' }, true);
    same('x<1', { x: '-5' }, true);
    same('x>3', { x: '9223372036854775807' }, true);
    same('x>3', { x: '9223372036854775808' }, false);
    same('x<3', { x: '-9223372036854775808' }, true);
    same('x<3', { x: '-9223372036854775809' }, false);
    same('x>9007199254740992', { x: '9007199254740993' }, true);
    same('x<0', { x: '-0' }, false);
    same('x>05', { x: '6' }, true);
  });

  it('regression: x notin () and x in () mean the value set {""}, the same everywhere', () => {
    same('x notin ()', {}, true);
    same('x notin ()', { x: 'a' }, true);
    same('x notin ()', { x: '' }, false);
    same('x in ()', { x: '' }, true);
    same('x in ()', { x: 'a' }, false);
    same('x in ()', {}, false);
    same('x in (a,)', { x: '' }, true);
  });

  it('only own keys count', () => {
    same('constructor', {}, false);
    same('!toString', {}, true);
    same('valueOf notin (x)', {}, true);
  });

  it('parseInt64 follows strconv.ParseInt(s, 10, 64)', () => {
    const cases: [string, bigint | undefined][] = [
      ['0', 0n], ['-0', 0n], ['+5', 5n], ['0005', 5n], ['-9223372036854775808', -(2n ** 63n)], ['9223372036854775807', 2n ** 63n - 1n],
      ['9223372036854775808', undefined], ['', undefined], ['+', undefined], ['-', undefined], ['5.0', undefined], ['1e0', undefined],
      ['0x5', undefined], ['5_0', undefined], [' 5', undefined], ['5 ', undefined], ['++5', undefined], ['٥', undefined],
    ];
    for (const [s, want] of cases) expect([s, parseInt64(s)]).toEqual([s, want]);
  });
});
