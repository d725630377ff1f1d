// Compile-time guarantees of the typed API, checked by compiling fixtures with the TypeScript
// compiler (strict, through the package name as a consumer imports it): `fixtures/typed-api.ts`
// compiles without a cast (its exact-type checks rule out `any`), and in
// `fixtures/typed-api-errors.ts` exactly the lines marked ✗ fail.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const fixtures = join(import.meta.dirname, 'fixtures');

interface Problem {
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

function compile(): Map<string, Problem[]> {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(fixtures, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('fixtures/tsconfig.json did not parse');
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const byFile = new Map<string, Problem[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file === undefined ? '(global)' : d.file.fileName.replace(/\\/g, '/').split('/').pop() ?? '';
    const line = d.file === undefined || d.start === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const list = byFile.get(file) ?? [];
    list.push({ line, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    byFile.set(file, list);
  }
  return byFile;
}

const format = (ps: readonly Problem[] = []) => ps.map((p) => `${p.line}: TS${p.code} ${p.message}`).join('\n');

describe('typed API (compiled fixtures)', () => {
  let problems: Map<string, Problem[]>;
  beforeAll(() => {
    problems = compile();
  }, 120_000);

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
