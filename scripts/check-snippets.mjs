/* global console, process, URL */
// Type-checks the documentation's TypeScript: every ```ts / ```typescript block of README.md,
// docs/**/*.md (but the generated docs/api/) and packages/*/README.md, and every TSDoc `@example` (and other ```ts fence of a TSDoc
// comment) of src/ and packages/*/src,
// compiled strictly (strict, noUncheckedIndexedAccess: the project's own settings) against the public entry points (`rxkube`, `rxkube/<door>`,
// `@rxkube/testkit`, …), through the package names as a consumer imports them.
//
// Each snippet is a module of its own, in memory. What a snippet uses but neither declares nor
// imports is imported for it when a public entry (or rxjs, vitest) exports that name; the rest of
// the context the docs assume (a `client`, `informers`, a reconcile's `ctx`, the `Widget` type,
// the example helpers) is declared in scripts/snippet-prelude.d.ts. A snippet made of object
// members (`reconcile: async (req, ctx) => { … },`) is checked as controller options.
//
// A cookbook recipe block (`<!-- recipe: examples/cookbook/x.ts -->` before the fence: the file
// embedded verbatim, see scripts/recipe-blocks.mjs) is a whole module with its own imports: it is
// checked as it stands, beside its file (so `./widget.js` resolves), with nothing imported for it.
//
// Opting out (keep it rare, give the reason): in Markdown, put `<!-- snippet: not-compiled (reason) -->`
// on the line before the fence, or write the fence as ```ts ignore; in TSDoc, ```ts ignore.
//
// Usage: node scripts/check-snippets.mjs [file …]   (default: every file above). Exits 1 and
// prints `file:line: TS<code> message` for each problem.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { RECIPE_MARKER } from './recipe-blocks.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const PRELUDE = path.join(root, 'scripts', 'snippet-prelude.d.ts');
/** Where the in-memory snippet files live: inside the package, so `rxkube` resolves to itself. */
const VIRTUAL_DIR = path.join(root, '.snippets');
const OPT_OUT = /<!--\s*snippet:\s*not-compiled\b/;
const FENCE_LANGS = new Set(['ts', 'typescript']);

/**
 * @typedef {{ file: string, line: number, code: string, recipe?: string }} Snippet  `line`: 1-based
 * line of the code's first line in `file`; `recipe`: the recipe file a cookbook block embeds.
 */
/** @typedef {{ file: string, line: number, code: number, message: string }} Problem */

/** The files checked by default. */
export function defaultFiles() {
  // docs/ and its folders (docs/cookbook/, …), but the generated API reference.
  const mdTree = (dir) =>
    fs.existsSync(dir)
      ? fs.readdirSync(dir, { withFileTypes: true, recursive: true })
          .filter((e) => e.isFile() && e.name.endsWith('.md'))
          .map((e) => path.join(e.parentPath, e.name))
          .filter((f) => !path.relative(dir, f).split(path.sep).includes('api'))
      : [];
  const packages = fs.readdirSync(path.join(root, 'packages')).map((p) => path.join(root, 'packages', p));
  const tsFiles = (dir) =>
    fs.existsSync(dir)
      ? fs.readdirSync(dir, { withFileTypes: true, recursive: true })
          .filter((e) => e.isFile() && e.name.endsWith('.ts'))
          .map((e) => path.join(e.parentPath, e.name))
      : [];
  return [
    path.join(root, 'README.md'),
    ...mdTree(path.join(root, 'docs')),
    ...packages.map((p) => path.join(p, 'README.md')).filter((f) => fs.existsSync(f)),
    ...tsFiles(path.join(root, 'src')),
    ...packages.flatMap((p) => tsFiles(path.join(p, 'src'))),
  ].sort();
}

/** The ```ts blocks of a Markdown text, but those opted out. */
export function markdownSnippets(file, text) {
  const lines = text.split('\n');
  const snippets = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]+)?(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const [, indent, fence, lang = '', rest] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    const optedOut = /\b(ignore|not-compiled)\b/.test(rest) || (i > 0 && OPT_OUT.test(lines[i - 1]));
    if (FENCE_LANGS.has(lang.toLowerCase()) && !optedOut) {
      const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
      const recipe = i > 0 ? RECIPE_MARKER.exec(lines[i - 1])?.[1] : undefined;
      snippets.push({ file, line: i + 2, code: body.join('\n'), ...(recipe === undefined ? {} : { recipe }) });
    }
    i = end;
  }
  return snippets;
}

/**
 * The examples of the TSDoc comments of a TypeScript source: each `@example` (the ```ts fence in
 * it, else its lines), and each other ```ts fence of a comment.
 */
export function tsdocSnippets(file, text) {
  const snippets = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const startLine = text.slice(0, comment.index).split('\n').length;
    const lines = comment[0].split('\n').map((l) => l.replace(/^\s*\/?\*+\/?\s?/, '').replace(/\s*\*\/\s*$/, ''));
    const inExample = new Set();
    for (let i = 0; i < lines.length; i++) {
      if (!/^@example\b/.test(lines[i].trim())) continue;
      let end = i + 1;
      let inFence = false;
      while (end < lines.length && (inFence || !/^@\w+/.test(lines[end].trim()))) {
        if (/^(`{3,}|~{3,})/.test(lines[end].trim())) inFence = !inFence;
        end++;
      }
      for (let k = i; k < end; k++) inExample.add(k);
      const block = lines.slice(i + 1, end);
      const fenceAt = block.findIndex((l) => /^(`{3,}|~{3,})/.test(l.trim()));
      if (fenceAt === -1) {
        const first = block.findIndex((l) => l.trim() !== '');
        if (first !== -1) snippets.push({ file, line: startLine + i + 1 + first, code: block.slice(first).join('\n').trimEnd() });
      } else {
        const [, lang = '', rest = ''] = /^(?:`{3,}|~{3,})\s*([\w-]+)?(.*)$/.exec(block[fenceAt].trim()) ?? [];
        const close = block.findIndex((l, k) => k > fenceAt && /^(`{3,}|~{3,})/.test(l.trim()));
        const body = block.slice(fenceAt + 1, close === -1 ? block.length : close);
        if ((lang === '' || FENCE_LANGS.has(lang.toLowerCase())) && !/\b(ignore|not-compiled)\b/.test(rest)) {
          snippets.push({ file, line: startLine + i + 1 + fenceAt + 1, code: body.join('\n') });
        }
      }
      i = end - 1;
    }
    // A ```ts fence elsewhere in the comment is an example too.
    for (let i = 0; i < lines.length; i++) {
      const open = inExample.has(i) ? null : /^(`{3,}|~{3,})\s*([\w-]+)?(.*)$/.exec(lines[i].trim());
      if (open === null) continue;
      const [, fence, lang = '', rest] = open;
      let end = i + 1;
      while (end < lines.length && !lines[end].trim().startsWith(fence)) end++;
      if (FENCE_LANGS.has(lang.toLowerCase()) && !/\b(ignore|not-compiled)\b/.test(rest)) {
        snippets.push({ file, line: startLine + i + 1, code: lines.slice(i + 1, end).join('\n') });
      }
      i = end;
    }
  }
  return snippets;
}

/** Every snippet of `files`. */
export function collectSnippets(files) {
  return files.flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8');
    return file.endsWith('.md') ? markdownSnippets(file, text) : tsdocSnippets(file, text);
  });
}

/** The names an entry file re-exports (`export { a, type B } from …`). */
function entryNames(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
    m[1].split(',').map((s) => s.trim().replace(/^type /, '').split(/\s+as\s+/).pop() ?? '').filter(Boolean),
  );
}

/** Name → module to import it from: the runtime's doors, the packages, then rxjs and vitest. */
async function importableNames() {
  const byName = new Map();
  const add = (moduleName, names) => {
    for (const n of names) if (!byName.has(n)) byName.set(n, moduleName);
  };
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const [sub, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object' || typeof target.source !== 'string') continue;
    add(sub === '.' ? 'rxkube' : `rxkube/${sub.slice(2)}`, entryNames(path.join(root, target.source)));
  }
  for (const p of fs.readdirSync(path.join(root, 'packages'))) {
    const dir = path.join(root, 'packages', p);
    const entry = path.join(dir, 'src', 'index.ts');
    if (!fs.existsSync(entry)) continue;
    const name = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name;
    add(name, entryNames(entry));
  }
  add('rxjs', Object.keys(await import('rxjs')));
  add('rxjs/testing', ['TestScheduler']);
  add('@kubernetes/client-node', ['CoreV1Api', 'AppsV1Api', 'KubeConfig', 'makeInformer']);
  add('vitest', ['describe', 'it', 'expect', 'vi', 'beforeAll', 'beforeEach', 'afterAll', 'afterEach']);
  return byName;
}

/** Identifiers a snippet uses without declaring or importing them. */
function freeNames(code) {
  const sf = ts.createSourceFile('snippet.mts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const declared = new Set();
  const used = new Set();
  const visit = (node) => {
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const isMember =
        p !== undefined &&
        (((ts.isPropertyAccessExpression(p) || ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isMethodSignature(p) ||
          ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) || ts.isEnumMember(p)) &&
          p.name === node) ||
          (ts.isQualifiedName(p) && p.right === node) ||
          (ts.isBindingElement(p) && p.propertyName === node) ||
          (ts.isImportSpecifier(p) && p.propertyName === node) ||
          ts.isLabeledStatement(p));
      const isDeclaration = !isMember && p !== undefined && 'name' in p && p.name === node && !ts.isShorthandPropertyAssignment(p);
      if (isDeclaration) declared.add(node.text);
      else if (!isMember) used.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...used].filter((n) => !declared.has(n));
}

/** Whether a snippet is a list of object members (`name: value,` / `name(…) {`), checked as controller options. */
function isMemberList(code) {
  const first = code.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('//'));
  return first !== undefined && /^\s*[A-Za-z_$][\w$]*\s*:\s*(?!:)/.test(first) && !/^\s*[A-Za-z_$][\w$]*\s*:\s*(for|while|do|switch|\{)\b/.test(first);
}

/** The in-memory module of a snippet and the number of lines put before its code. */
function moduleOf(snippet, importable) {
  // A recipe is a whole module, as in its file: nothing added, nothing imported for it.
  if (snippet.recipe !== undefined) return { text: `${snippet.code}\n`, offset: 0, wrapperLineAfter: undefined };
  // Imports first (a member list may start with the imports it needs), then the rest.
  const lines = snippet.code.split('\n');
  let cut = 0;
  while (cut < lines.length && (/^\s*import\b/.test(lines[cut]) || lines[cut].trim() === '')) cut++;
  const rest = lines.slice(cut).join('\n');
  const memberList = isMemberList(rest);
  const code = memberList
    ? `${lines.slice(0, cut).join('\n')}${cut > 0 ? '\n' : ''}snippetControllerOptions({\n${rest}\n});`
    : snippet.code;
  return withImports(code, memberList, importable, cut);
}

/** `code` with the imports of its free names that a public entry exports, on one line before it. */
function withImports(code, memberList, importable, importLines) {
  const imports = new Map();
  for (const name of freeNames(code)) {
    const from = importable.get(name);
    if (from === undefined) continue;
    imports.set(from, [...(imports.get(from) ?? []), name]);
  }
  const header = [...imports].map(([from, names]) => `import { ${names.join(', ')} } from '${from}';`).join(' ');
  // Lines before the snippet's line k (0-based, k ≥ importLines) in the module: the header, plus
  // the wrapper's first line of a member list.
  return { text: `${header}\n${code}\nexport {};\n`, offset: 1, wrapperLineAfter: memberList ? importLines : undefined };
}

/** Compiler options of the check: an operator author's strict project. */
function compilerOptions() {
  return {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['source'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: false,
  };
}

/**
 * Type-checks `snippets`; resolves with one problem per diagnostic in a snippet, at its line in
 * the documentation file (plus any diagnostic of the prelude).
 * @param {readonly Snippet[]} snippets
 * @returns {Promise<Problem[]>}
 */
export async function checkSnippets(snippets) {
  const importable = await importableNames();
  const virtual = new Map();
  snippets.forEach((s, i) => {
    const name = `${path.relative(root, s.file).replace(/[^\w]+/g, '_')}_${s.line}_${i}.mts`;
    // A recipe beside its file, so that its relative imports resolve as they do for the file.
    const dir = s.recipe === undefined ? VIRTUAL_DIR : path.join(root, path.dirname(s.recipe));
    virtual.set(path.join(dir, `.snippet_${name}`), { snippet: s, ...moduleOf(s, importable) });
  });
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => virtual.has(path.resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(path.resolve(f))?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, language, onError, create) => {
    const v = virtual.get(path.resolve(f));
    return v === undefined ? getSourceFile.call(host, f, language, onError, create) : ts.createSourceFile(f, v.text, language, true, ts.ScriptKind.TS);
  };
  const program = ts.createProgram({ rootNames: [PRELUDE, ...virtual.keys()], options, host });
  const problems = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const fileName = d.file === undefined ? undefined : path.resolve(d.file.fileName);
    const v = fileName === undefined ? undefined : virtual.get(fileName);
    const at = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
    if (v !== undefined) {
      let k = Math.max(0, at - v.offset);
      if (v.wrapperLineAfter !== undefined && k > v.wrapperLineAfter) k--;
      const line = k + v.snippet.line;
      problems.push({ file: v.snippet.file, line, code: d.code, message });
    } else if (fileName === undefined || fileName === PRELUDE) {
      // The library's own files are tsc's to check (with the project's options); only the
      // snippets and their prelude are checked here.
      problems.push({ file: fileName ?? '(global)', line: at + 1, code: d.code, message });
    }
  }
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.code - b.code);
}

async function main() {
  const args = process.argv.slice(2);
  const files = args.length > 0 ? args.map((f) => path.resolve(f)) : defaultFiles();
  const snippets = collectSnippets(files);
  const problems = await checkSnippets(snippets);
  for (const p of problems) console.log(`${path.relative(process.cwd(), p.file)}:${p.line}: TS${p.code} ${p.message.split('\n')[0]}`);
  console.log(`${snippets.length} snippets in ${files.length} files: ${problems.length === 0 ? 'all compile' : `${problems.length} problems`}`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) await main();
