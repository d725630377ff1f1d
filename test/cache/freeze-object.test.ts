import { describe, expect, it } from 'vitest';
import { freezeObject } from '../../src/cache/index.js';

describe("freezeObject 'deep'", () => {
  it('freezes every plain object and array at any depth, including arrays of arrays and null-prototype objects', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { x: { y: [1] } });
    const o = { a: { b: { c: [{ d: { e: 'f' } }, [[{ g: 1 }]]] } }, n: null, s: 'str', bare };
    freezeObject(o, 'deep');
    const all: unknown[] = [o, o.a, o.a.b, o.a.b.c, o.a.b.c[0], (o.a.b.c[0] as { d: object }).d, o.a.b.c[1], (o.a.b.c[1] as unknown[][])[0], (o.a.b.c[1] as object[][])[0]?.[0], bare, bare.x, (bare.x as { y: unknown }).y];
    for (const x of all) expect(Object.isFrozen(x)).toBe(true);
    expect(() => {
      ((o.a.b.c[1] as Array<Array<{ g: number }>>)[0] as Array<{ g: number }>)[0]!.g = 2;
    }).toThrow(TypeError);
  });

  it('hands Maps, Sets and class instances to immer (Map/Set become read-only, fields frozen)', () => {
    class Box {
      inner = { v: 1 };
    }
    const o = { m: new Map([['k', { v: 1 }]]), s: new Set([1]), box: new Box() };
    freezeObject(o, 'deep');
    expect(() => o.m.set('x', { v: 2 })).toThrow();
    expect(() => o.s.add(2)).toThrow();
    expect(Object.isFrozen(o.m.get('k'))).toBe(true);
    expect(Object.isFrozen(o.box)).toBe(false); // immer leaves non-draftable class instances alone, as before
  });

  it('returns its argument and leaves an already-frozen subtree as it is', () => {
    const inner = { x: { y: 1 } };
    Object.freeze(inner); // frozen shallowly: its child stays mutable, as with immer
    const o = { inner };
    expect(freezeObject(o, 'deep')).toBe(o);
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(inner.x)).toBe(false);
  });
});
