import { describe, expect, it } from 'vitest';
import { InformerConfigError } from '../../src/informer/informer-errors.js';
import { labelMatcher } from '../../src/informer/label-selector.js';

describe('labelMatcher', () => {
  const l = { app: 'web', tier: 'front', env: 'prod' };
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web, db)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['app=web,tier in (front),env!=dev', true],
    ['app=web,env=dev', false],
  ])('%s → %s', (selector, want) => {
    expect(labelMatcher(selector)(l)).toBe(want);
  });

  it('match-labels objects and missing labels', () => {
    expect(labelMatcher({ app: 'web' })(l)).toBe(true);
    expect(labelMatcher({ app: 'web', x: 'y' })(l)).toBe(false);
    expect(labelMatcher('app')(undefined)).toBe(false);
    expect(labelMatcher(undefined)(undefined)).toBe(true);
  });

  it('malformed selectors are typed errors', () => {
    for (const bad of ['=x', 'a b=c', 'in (x)', '!', 'a=b,,=c']) expect(() => labelMatcher(bad), bad).toThrow(InformerConfigError);
  });
});
