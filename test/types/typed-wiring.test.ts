// Typed controller wiring (issue 27): compiles fixtures/typed-wiring.ts (must compile, no casts)
// and fixtures/typed-wiring-errors.ts, whose lines marked `✗ TS<code>` must fail with exactly that
// diagnostic code — and no other line may fail — with the options of fixtures/tsconfig.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const fixtures = join(import.meta.dirname, 'fixtures');
const FILES = ['typed-wiring.ts', 'typed-wiring-errors.ts'];

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
  const program = ts.createProgram({ rootNames: FILES.map((f) => join(fixtures, f)), options: parsed.options });
  const byFile = new Map<string, Problem[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file === undefined ? '(global)' : (d.file.fileName.split('/').pop() ?? '');
    const line = d.file === undefined || d.start === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const list = byFile.get(file) ?? [];
    list.push({ line, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    byFile.set(file, list);
  }
  return byFile;
}

const format = (ps: readonly Problem[] = []) => ps.map((p) => `${p.line}: TS${p.code} ${p.message}`).join('\n');

describe('typed controller wiring (compiled fixtures)', () => {
  let problems: Map<string, Problem[]>;
  beforeAll(() => {
    problems = compile();
  }, 120_000);

  it('fixtures/typed-wiring.ts compiles: inline watches/owns typed by their source, Cached objects, no casts', () => {
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
