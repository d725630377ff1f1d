import { describe, expect, it } from 'vitest';
import { parseFieldSelector, COMMON_FIELDS } from '../../src/testing/api-server/field-selector.js';
import { parseLabelSelector } from '../../src/testing/api-server/label-selector.js';
import { StatusError } from '../../src/testing/api-server/status-error.js';

describe('label selector', () => {
  const l = { app: 'web', tier: 'front', 'example.com/x': '5' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db)', true],
    ['missing notin (db)', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['example.com/x', true],
    ['example.com/x>3', true],
    ['example.com/x<3', false],
    ['app=web,tier=back', false],
    ['app=web, tier in (front, back)', true],
    ['missing=', false],
  ];
  for (const [sel, want] of cases) {
    it(`"${sel}" → ${want}`, () => expect(parseLabelSelector(sel).matches(l)).toBe(want));
  }
  for (const bad of ['a in (b', 'a in ()', '=b', '-a=b', 'a=b c', 'a==b==c', 'a>b', 'a)']) {
    it(`"${bad}" is a 400 BadRequest`, () => {
      try {
        parseLabelSelector(bad);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(StatusError);
        expect((e as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
      }
    });
  }
});

describe('field selector', () => {
  it('=, ==, != on supported fields; unknown fields are 400', () => {
    const o = { metadata: { name: 'a', namespace: 'n' } };
    expect(parseFieldSelector('metadata.name=a', COMMON_FIELDS).matches(o)).toBe(true);
    expect(parseFieldSelector('metadata.name==a,metadata.namespace!=n', COMMON_FIELDS).matches(o)).toBe(false);
    expect(parseFieldSelector('metadata.namespace!=x', COMMON_FIELDS).matches(o)).toBe(true);
    expect(() => parseFieldSelector('spec.x=1', COMMON_FIELDS)).toThrow(StatusError);
    expect(() => parseFieldSelector('garbage', COMMON_FIELDS)).toThrow(StatusError);
  });
});
