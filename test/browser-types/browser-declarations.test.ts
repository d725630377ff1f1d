// `rxkube/browser` and `rxkube/operators` type-check in a browser project: DOM library,
// `types: []`, no @types/node installed, `skipLibCheck: false`. Checked on the declarations a
// user gets: those of the browser doors, emitted with the build's own options
// (tsconfig.build.json) and laid out as the packed package (package.json without the `source`
// conditions, dist/…), in memory; and on the sources (the `source` condition: this repository's
// own browser page, examples/live-dashboard/page, compiles them so). The browser project is
// compiled by a compiler host on which node_modules/@types/node does not exist, so every Node.js
// type the doors reach (`Buffer`, `NodeJS.*`, `node:*` modules, through whichever import, even
// one that would pull @types/node in by a `/// <reference types="node" />`) is an error here.
import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
/** Where the in-memory project lives (nothing is written there): its own node_modules/rxkube. */
const project = join(import.meta.dirname, '.virtual-browser-project');
const packageRoot = join(project, 'node_modules', 'rxkube');
const BROWSER_DOORS = ['./browser', './operators'];

/** True for a path inside @types/node: a browser project has no Node.js types. */
const isNodeTypes = (p: string) => /[\\/]node_modules[\\/]@types[\\/]node(?:[\\/]|$)/.test(p);

interface Manifest {
  readonly exports: Record<string, Record<string, string>>;
}

/** The declarations of the browser doors as `npm run build` writes them, keyed by their path in the package. */
function emitBrowserDeclarations(manifest: Manifest): Map<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(join(repo, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (config === undefined) throw new Error('tsconfig.build.json did not parse');
  const outDir = config.options.outDir ?? join(repo, 'dist');
  const rootNames = BROWSER_DOORS.map((door) => join(repo, manifest.exports[door]?.['source'] ?? `(no source for ${door})`));
  const program = ts.createProgram({ rootNames, options: { ...config.options, noEmit: false, emitDeclarationOnly: true, declaration: true, declarationMap: false, sourceMap: false } });
  const files = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => {
    if (file.endsWith('.d.ts')) files.set(join(packageRoot, 'dist', relative(outDir, resolve(file))), text);
  });
  if (result.emitSkipped) throw new Error('declaration emit skipped');
  return files;
}

/** package.json as packed: without the `source` conditions (scripts/pack-manifest.mjs prepack). */
function packedManifest(manifest: Manifest): string {
  const exports = Object.fromEntries(Object.entries(manifest.exports).map(([door, conditions]) => [door, Object.fromEntries(Object.entries(conditions).filter(([c]) => c !== 'source'))]));
  return JSON.stringify({ ...manifest, exports });
}

interface Problem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** Compiles `roots` (in-memory files of the browser project) with a browser's options, @types/node absent. */
function compileBrowserProject(files: ReadonlyMap<string, string>, roots: readonly string[], extra: ts.CompilerOptions = {}): Problem[] {
  const options: ts.CompilerOptions = {
    ...extra,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
    strict: true,
    skipLibCheck: false,
    noEmit: true,
  };
  const real = ts.createCompilerHost(options);
  const virtual = (p: string) => files.get(resolve(p));
  const host: ts.CompilerHost = {
    ...real,
    fileExists: (p) => virtual(p) !== undefined || (!isNodeTypes(p) && real.fileExists(p)),
    readFile: (p) => virtual(p) ?? (isNodeTypes(p) ? undefined : real.readFile(p)),
    directoryExists: (d) => {
      const dir = resolve(d) + sep;
      if ([...files.keys()].some((f) => f.startsWith(dir))) return true;
      return !isNodeTypes(d) && (real.directoryExists?.(d) ?? true);
    },
    realpath: (p) => (virtual(p) !== undefined || resolve(p).startsWith(project) ? p : (real.realpath?.(p) ?? p)),
    getSourceFile: (p, language, onError, create) => {
      const text = virtual(p);
      if (text !== undefined) return ts.createSourceFile(p, text, language);
      return isNodeTypes(p) ? undefined : real.getSourceFile(p, language, onError, create);
    },
  };
  const program = ts.createProgram({ rootNames: roots, options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file === undefined ? '(global)' : relative(project, d.file.fileName).split(sep).join('/'),
    line: d.file === undefined || d.start === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line + 1,
    message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }));
}

const format = (ps: readonly Problem[]) => ps.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n');

/** The browser project's files: the page (test/browser-types/fixtures) and the control. */
function browserProject(): { files: Map<string, string>; page: string; control: string } {
  const page = join(project, 'dashboard-page.ts');
  const control = join(project, 'node-control.ts');
  const files = new Map<string, string>();
  files.set(page, readFileSync(join(import.meta.dirname, 'fixtures', 'dashboard-page.ts'), 'utf8'));
  // The control: Node.js's own types really are missing in this project.
  files.set(control, 'export type Chunk = Buffer;\n');
  return { files, page, control };
}

const controlFails = (problems: readonly Problem[]) => {
  const control = problems.filter((p) => p.file === 'node-control.ts');
  expect(control.map((p) => p.message)).toEqual([expect.stringMatching(/Cannot find name 'Buffer'/)]);
};

describe('rxkube/browser declarations (as packed) in a browser project (DOM, no @types/node, skipLibCheck false)', () => {
  let problems: Problem[];

  beforeAll(() => {
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Manifest;
    const { files, page, control } = browserProject();
    for (const [file, text] of emitBrowserDeclarations(manifest)) files.set(file, text);
    files.set(join(packageRoot, 'package.json'), packedManifest(manifest));
    problems = compileBrowserProject(files, [page, control]);
  }, 240_000);

  it('the project has no Node.js types (the control file naming Buffer fails)', () => controlFails(problems));

  it('a page importing rxkube/browser and rxkube/operators type-checks, and so does every declaration they reach', () => {
    const others = problems.filter((p) => p.file !== 'node-control.ts');
    expect(format(others), 'Node.js types (or other errors) reached from the browser doors').toBe('');
  });
});

describe('rxkube/browser sources (the `source` condition) in a browser project (DOM, no @types/node)', () => {
  let problems: Problem[];

  beforeAll(() => {
    const { files, page, control } = browserProject();
    problems = compileBrowserProject(files, [page, control], { customConditions: ['source'] });
  }, 240_000);

  it('the project has no Node.js types (the control file naming Buffer fails)', () => controlFails(problems));

  it('a page importing rxkube/browser and rxkube/operators type-checks with every module they import', () => {
    const others = problems.filter((p) => p.file !== 'node-control.ts');
    expect(format(others), 'Node.js types (or other errors) reached from the browser doors').toBe('');
  });
});
