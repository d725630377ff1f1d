/**
 * The depth limit of request bodies, checked without walking bodies that cannot reach it: a JSON
 * text that opens at most `max` objects and arrays in all cannot nest deeper than `max`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { opensAtMost, tooDeepAt } from '../src/api-server/json-depth.js';

function nested(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

describe('opensAtMost', () => {
  it('counts objects and arrays up to the limit and no further', () => {
    expect(opensAtMost(nested(5), 5)).toBe(true);
    expect(opensAtMost(nested(6), 5)).toBe(false);
    expect(opensAtMost('[[[{}]]]', 4)).toBe(true);
    expect(opensAtMost('[[[{}]]]', 3)).toBe(false);
    expect(opensAtMost('{"a":"1"}', 0)).toBe(false);
    expect(opensAtMost('"no brackets"', 0)).toBe(true);
  });

  it('counts brackets inside strings too (an over-count only means the walk is done)', () => {
    expect(opensAtMost('{"a":"[[{{"}', 1)).toBe(false);
  });

  it('never says "shallow enough" for a value the walk finds too deep', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
      if (opensAtMost(JSON.stringify(value), max)) expect(tooDeepAt(value, max)).toBeUndefined();
    }), { numRuns: 500 });
  });
});
