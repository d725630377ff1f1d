// scripts/check-snippets.mjs can fail: fed fixtures with broken snippets, it reports each at its
// line in the documentation file with the compiler's code, and nothing for the snippets that
// compile, are opted out or are not TypeScript.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkSnippets, collectSnippets } from '../../scripts/check-snippets.mjs';

interface Problem {
  readonly file: string;
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

const fixtures = path.join(import.meta.dirname, '../fixtures/compile-fail');
const md = path.join(fixtures, 'snippets.md');
const example = path.join(fixtures, 'snippets-example.ts');

describe('check-snippets', () => {
  it('collects the ts/typescript blocks, @examples and TSDoc fences, without the opted-out ones', () => {
    const snippets = collectSnippets([md, example]) as { file: string; line: number }[];
    expect(snippets.map((s) => `${path.basename(s.file)}:${s.line}`)).toEqual([
      'snippets.md:6',
      'snippets.md:13',
      'snippets.md:31',
      'snippets-example.ts:8',
      'snippets-example.ts:17',
      'snippets-example.ts:27',
    ]);
  });

  it('reports each broken snippet at its line, with the diagnostic code, and only those', async () => {
    const problems = (await checkSnippets(collectSnippets([md, example]))) as Problem[];
    const found = problems.map((p) => `${path.basename(p.file)}:${p.line}: TS${p.code}`);
    expect(found, problems.map((p) => `${p.line}: ${p.message}`).join('\n')).toEqual([
      'snippets-example.ts:18: TS2552', // CONFIG_MAPS does not exist (did you mean configMaps?)
      'snippets-example.ts:27: TS2339', // a Pod has no data (a fence outside @example)
      'snippets.md:14: TS2551', // containerz: did you mean containers?
      'snippets.md:34: TS2339', // a ConfigMap has no spec (in a member-list snippet, typed by its source)
    ]);
  }, 300_000);
});
