// Compile-time guarantees of the typed API, checked by compiling fixtures with the TypeScript
// compiler (strict, through the package name as a consumer imports it; one program for all
// fixtures, see compile-fixtures.ts):
// - `fixtures/typed-api.ts` compiles without a cast (its exact-type checks rule out `any`), and in
//   `fixtures/typed-api-errors.ts` exactly the lines marked ✗ fail.
// - Typed controller wiring (issue 27) and cache reads typed `Cached`: `fixtures/typed-wiring.ts` must compile, no casts, and in
//   `fixtures/typed-wiring-errors.ts` the lines marked `✗ TS<code>` must fail with exactly that
//   diagnostic code — and no other line may fail.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileFixtures, fixtures, format, type Problem } from './compile-fixtures.js';

let problems: Map<string, Problem[]>;
beforeAll(() => {
  problems = compileFixtures();
}, 120_000);

describe('typed API (compiled fixtures)', () => {
  it('fixtures/typed-api.ts compiles: typed informers, clients, controllers, generated types, conversions, no casts', () => {
    expect(format(problems.get('typed-api.ts')), 'typed-api.ts must compile').toBe('');
    expect(format(problems.get('(global)'))).toBe('');
    const code = readFileSync(join(fixtures, 'typed-api.ts'), 'utf8').replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bas\s+[\w({[]|<any>|:\s*any\b/); // no casts, no any
  });

  it('fixtures/typed-api-errors.ts fails exactly on the lines marked ✗ (misspelt fields, mixed-up types)', () => {
    const source = readFileSync(join(fixtures, 'typed-api-errors.ts'), 'utf8').split('\n');
    const marked = source.flatMap((l, i) => (/\/\/ ✗/.test(l) ? [i + 1] : []));
    expect(marked.length).toBeGreaterThanOrEqual(8);
    const found = problems.get('typed-api-errors.ts') ?? [];
    expect([...new Set(found.map((p) => p.line))].sort((a, b) => a - b), format(found)).toEqual(marked);
    const misspelt = found.find((p) => p.line === marked[0]);
    expect(misspelt?.message).toMatch(/Property 'containerz' does not exist .*Did you mean 'containers'\?/s);
  });
});

describe('typed controller wiring (compiled fixtures)', () => {
  it('fixtures/typed-wiring.ts compiles: inline watches/owns typed by their source, Cached objects (also from informer stores, listers, indexes, events, state$, until, joinOn), no casts', () => {
    expect(format(problems.get('(global)'))).toBe('');
    expect(format(problems.get('typed-wiring.ts')), 'typed-wiring.ts must compile').toBe('');
    const code = readFileSync(join(fixtures, 'typed-wiring.ts'), 'utf8').replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bas\s+[\w({[]|<any>|:\s*any\b|!\./); // no casts, no any, no `!`
  });

  it('fixtures/typed-wiring-errors.ts fails on exactly the lines marked ✗, each with the expected code', () => {
    const source = readFileSync(join(fixtures, 'typed-wiring-errors.ts'), 'utf8').split('\n');
    const expected = source.flatMap((l, i) => {
      const m = /\/\/ ✗ TS(\d+)/.exec(l);
      return m === null ? [] : [`${i + 1}: TS${m[1]}`];
    });
    expect(expected.length).toBeGreaterThanOrEqual(6);
    const found = problems.get('typed-wiring-errors.ts') ?? [];
    // One diagnostic per marked line: the first on the line decides.
    const firstPerLine = new Map<number, number>();
    for (const p of found) if (!firstPerLine.has(p.line)) firstPerLine.set(p.line, p.code);
    const actual = [...firstPerLine].sort(([a], [b]) => a - b).map(([line, code]) => `${line}: TS${code}`);
    expect(actual, format(found)).toEqual(expected);
  });
});
