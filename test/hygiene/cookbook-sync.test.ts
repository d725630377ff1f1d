// The cookbook (docs/cookbook/) is single-sourced: each page embeds its recipe file from
// examples/cookbook/ verbatim after a `<!-- recipe: … -->` marker. This fails when a page's block
// differs from its file (naming the page, the line and the file), when a recipe file is on no page
// or has no test, or when a page is missing from the index; and it shows, on pages written here,
// that each kind of drift is caught and that check-snippets compiles a recipe block beside its file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { pagesOf, recipeBlocks, recipeSyncProblems, root } from '../../scripts/recipe-blocks.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkSnippets, collectSnippets } from '../../scripts/check-snippets.mjs';

interface RecipeBlock {
  readonly page: string;
  readonly line: number;
  readonly recipe: string;
  readonly code: string | undefined;
}
interface Problem {
  readonly page: string;
  readonly line: number;
  readonly recipe: string;
  readonly message: string;
}
interface SnippetProblem {
  readonly file: string;
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

const cookbook = path.join(root as string, 'docs', 'cookbook');
const recipesDir = path.join(root as string, 'examples', 'cookbook');
const pages = (): string[] => pagesOf(cookbook) as string[];
const blocksOf = (page: string): RecipeBlock[] => recipeBlocks(page, fs.readFileSync(page, 'utf8')) as RecipeBlock[];
const rel = (p: string): string => path.relative(root as string, p);
const describeProblem = (p: Problem): string => `${rel(p.page)}:${p.line}: ${p.message}`;

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cookbook-sync-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
/** A page written to the scratch folder. */
function page(name: string, text: string): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, text);
  return file;
}
const FINALIZERS = 'examples/cookbook/finalizers.ts';
const finalizersCode = (): string => fs.readFileSync(path.join(root as string, FINALIZERS), 'utf8').replace(/\n+$/, '');
const embed = (recipe: string, code: string): string => `# A page\n\nSome prose.\n\n<!-- recipe: ${recipe} -->\n\`\`\`ts\n${code}\n\`\`\`\n\nMore prose.\n`;

describe('cookbook: pages and recipe files are one source', () => {
  it('every recipe block of docs/cookbook/ is its file, verbatim', () => {
    expect(pages().length).toBeGreaterThan(1);
    expect(pages().flatMap(blocksOf).length).toBeGreaterThan(1);
    const problems = recipeSyncProblems(pages()) as Problem[];
    expect(problems.map(describeProblem)).toEqual([]);
  });

  it('every recipe file is embedded, every recipe has its test, every page is in the index', () => {
    const embedded = new Set(pages().flatMap(blocksOf).map((b) => b.recipe));
    const files = fs.readdirSync(recipesDir).filter((f) => f.endsWith('.ts')).map((f) => `examples/cookbook/${f}`);
    expect(files.filter((f) => !embedded.has(f)), 'recipe files on no page').toEqual([]);
    const untested = [...embedded]
      .filter((r) => r !== 'examples/cookbook/widget.ts') // the shared type, not a recipe
      .map((r) => `test/cookbook/${path.basename(r).replace(/(\.test)?\.ts$/, '')}.test.ts`)
      .filter((t) => !fs.existsSync(path.join(root as string, t)));
    expect(untested, 'recipes without their test').toEqual([]);
    const index = fs.readFileSync(path.join(cookbook, 'README.md'), 'utf8');
    const unlisted = pages().map((p) => path.basename(p)).filter((p) => p !== 'README.md' && !index.includes(`](${p})`));
    expect(unlisted, 'pages missing from docs/cookbook/README.md').toEqual([]);
  });
});

describe('cookbook sync check can fail', () => {
  it('names the page, the line and the file of a block that differs from its file', () => {
    const lines = finalizersCode().split('\n');
    const changedAt = lines.findIndex((l) => l.includes('const entry ='));
    const edited = lines.map((l, i) => (i === changedAt ? l.replace('const entry =', 'const entryName =') : l)).join('\n');
    const drifted = page('drifted.md', embed(FINALIZERS, edited));
    const problems = recipeSyncProblems([drifted]) as Problem[];
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    // The block's first code line is line 7 of the page.
    expect(problem?.line).toBe(7 + changedAt);
    expect(problem?.page).toBe(drifted);
    expect(problem?.message).toContain(`differs from ${FINALIZERS} at its line ${changedAt + 1}`);
    expect(problem?.message).toContain('const entryName =');
  });

  it('catches a block that stops short of its file, a missing file and a marker without a block', () => {
    const short = page('short.md', embed(FINALIZERS, finalizersCode().split('\n').slice(0, -2).join('\n')));
    const missing = page('missing.md', embed('examples/cookbook/no-such-recipe.ts', 'export {};'));
    const bare = page('bare.md', `# Bare\n\n<!-- recipe: ${FINALIZERS} -->\n\nNo block.\n`);
    const found = (recipeSyncProblems([short, missing, bare]) as Problem[]).map((p) => `${path.basename(p.page)}:${p.line}: ${p.message.split(':')[0]}`);
    const total = finalizersCode().split('\n').length;
    expect(found).toEqual([
      `short.md:${7 + total - 2}: differs from ${FINALIZERS} at its line ${total - 1}`,
      'missing.md:5: names examples/cookbook/no-such-recipe.ts, which does not exist',
      `bare.md:3: the recipe marker of ${FINALIZERS} is not followed by a \`\`\`ts block`,
    ]);
  });

  it('an unchanged block passes', () => {
    expect(recipeSyncProblems([page('same.md', embed(FINALIZERS, finalizersCode()))])).toEqual([]);
  });
});

describe('check-snippets on recipe blocks', () => {
  it('compiles a recipe block beside its file (its relative imports resolve) and reports a broken one at its page line', async () => {
    const lines = finalizersCode().split('\n');
    const brokenAt = lines.findIndex((l) => l.includes('widget.spec.color'));
    const broken = lines.map((l, i) => (i === brokenAt ? l.replace('widget.spec.color', 'widget.spec.colour') : l)).join('\n');
    const good = page('good-recipe.md', embed(FINALIZERS, finalizersCode()));
    const bad = page('bad-recipe.md', embed(FINALIZERS, broken));
    const problems = (await checkSnippets(collectSnippets([good, bad]))) as SnippetProblem[];
    expect(problems.map((p) => `${path.basename(p.file)}:${p.line}: TS${p.code}`), problems.map((p) => p.message).join('\n')).toEqual([
      `bad-recipe.md:${7 + brokenAt}: TS2551`, // colour: did you mean color?
    ]);
  }, 300_000);
});
