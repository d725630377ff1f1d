/* global URL */
// The cookbook's recipe blocks (docs/cookbook/): a Markdown page embeds a recipe file verbatim as
//
//   <!-- recipe: examples/cookbook/finalizers.ts -->
//   ```ts
//   …the whole file…
//   ```
//
// so the code a reader sees is the code CI compiles (tsc, eslint), tests (test/cookbook/) and
// type-checks as a snippet (scripts/check-snippets.mjs, beside the file, so its relative imports
// resolve). `recipeBlocks` finds the blocks; `recipeSyncProblems` reports every block that differs
// from its file (test/hygiene/cookbook-sync.test.ts runs it over docs/cookbook/).
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The marker line before a recipe block; group 1 is the recipe file, relative to the repository root. */
export const RECIPE_MARKER = /^\s*<!--\s*recipe:\s*(\S+)\s*-->\s*$/;

/**
 * @typedef {{ page: string, markerLine: number, line: number, recipe: string, code: string | undefined }} RecipeBlock
 * `markerLine`, `line`: 1-based lines of the marker and of the block's first code line in `page`;
 * `recipe`: the file named by the marker (relative to the repository root); `code`: the block's
 * text, `undefined` when no ```ts fence follows the marker.
 */

/** The recipe blocks of a Markdown text. */
export function recipeBlocks(page, text) {
  const lines = text.split('\n');
  /** @type {RecipeBlock[]} */
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = RECIPE_MARKER.exec(lines[i]);
    if (marker === null) continue;
    const open = /^(`{3,}|~{3,})\s*(ts|typescript)\s*$/.exec(lines[i + 1] ?? '');
    if (open === null) {
      blocks.push({ page, markerLine: i + 1, line: i + 2, recipe: marker[1], code: undefined });
      continue;
    }
    let end = i + 2;
    while (end < lines.length && lines[end].trimEnd() !== open[1]) end++;
    blocks.push({ page, markerLine: i + 1, line: i + 3, recipe: marker[1], code: lines.slice(i + 2, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** @typedef {{ page: string, line: number, recipe: string, message: string }} SyncProblem */

/** A file's text as a page embeds it: without the final newline. */
function asEmbedded(text) {
  return text.replace(/\r\n/g, '\n').replace(/\n+$/, '');
}

/**
 * The blocks of `pages` that are not their recipe file verbatim: a missing file, a marker without
 * a ```ts fence, or the first line that differs (its line in the page, and in the file).
 * @param {readonly string[]} pages  absolute paths of Markdown files
 * @returns {SyncProblem[]}
 */
export function recipeSyncProblems(pages) {
  /** @type {SyncProblem[]} */
  const problems = [];
  for (const page of pages) {
    for (const block of recipeBlocks(page, fs.readFileSync(page, 'utf8'))) {
      const file = path.join(root, block.recipe);
      const at = { page, recipe: block.recipe };
      if (!fs.existsSync(file)) {
        problems.push({ ...at, line: block.markerLine, message: `names ${block.recipe}, which does not exist` });
        continue;
      }
      if (block.code === undefined) {
        problems.push({ ...at, line: block.markerLine, message: `the recipe marker of ${block.recipe} is not followed by a \`\`\`ts block` });
        continue;
      }
      const want = asEmbedded(fs.readFileSync(file, 'utf8')).split('\n');
      const have = asEmbedded(block.code).split('\n');
      const k = want.findIndex((l, j) => have[j] !== l);
      if (k === -1 && have.length === want.length) continue;
      const differs = k === -1 ? want.length : k;
      const show = (l) => (l === undefined ? '(nothing)' : JSON.stringify(l));
      problems.push({
        ...at,
        line: block.line + differs,
        message: `differs from ${block.recipe} at its line ${differs + 1}: the file has ${show(want[differs])}, the page ${show(have[differs])} (copy the file into the block)`,
      });
    }
  }
  return problems;
}

/** The Markdown pages of a folder (not recursive), sorted. */
export function pagesOf(dir) {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(dir, f)) : [];
}
