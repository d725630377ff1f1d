/**
 * Compiles every fixture of `fixtures/` in one TypeScript program with the options of
 * `fixtures/tsconfig.json` (strict, through the package name as a consumer imports it) and groups
 * the diagnostics by file name. Building the program (checking rxkube's declarations the fixtures
 * import) is nearly all of a type test's time, so the fixture tests share one build: the fixtures
 * are modules, so each file's diagnostics are the same as in a program of its own.
 */
import { join } from 'node:path';
import ts from 'typescript';

export const fixtures = join(import.meta.dirname, 'fixtures');

/** Fixtures compiled besides the `files` of fixtures/tsconfig.json. */
const EXTRA_FILES = ['typed-wiring.ts', 'typed-wiring-errors.ts'];

export interface Problem {
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

let compiled: Map<string, Problem[]> | undefined;

/** Diagnostics of all fixtures by file name (`(global)` for those without a file); compiled once per process. */
export function compileFixtures(): Map<string, Problem[]> {
  compiled ??= compile();
  return compiled;
}

function compile(): Map<string, Problem[]> {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(fixtures, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('fixtures/tsconfig.json did not parse');
  const rootNames = [...new Set([...parsed.fileNames, ...EXTRA_FILES.map((f) => join(fixtures, f))])];
  const program = ts.createProgram({ rootNames, options: parsed.options });
  const byFile = new Map<string, Problem[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file === undefined ? '(global)' : (d.file.fileName.replace(/\\/g, '/').split('/').pop() ?? '');
    const line = d.file === undefined || d.start === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const list = byFile.get(file) ?? [];
    list.push({ line, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    byFile.set(file, list);
  }
  return byFile;
}

export const format = (ps: readonly Problem[] = []): string => ps.map((p) => `${p.line}: TS${p.code} ${p.message}`).join('\n');
