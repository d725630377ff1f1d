/**
 * Typed indexes: a misspelt index name is a compile error. Compiles a fixture with the project's
 * compiler options through the TypeScript API and checks that its one marked line, and only that
 * line, fails with "not assignable".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = path.join(root, 'test/fixtures/compile-fail/misspelt-index.ts');

describe('typed indexes (compile-fail fixture)', () => {
  it('a misspelt index name does not compile; the correct uses around it do', () => {
    const configPath = path.join(root, 'tsconfig.json');
    const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram([fixture], { ...parsed.options, noEmit: true });
    const source = program.getSourceFile(fixture);
    expect(source).toBeDefined();
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    const expectedLine = readFileSync(fixture, 'utf8').split('\n').findIndex((l) => l.includes('EXPECTED ERROR'));
    const found = diagnostics.map((d) => ({
      code: d.code,
      line: d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
    expect(found).toEqual([
      {
        code: 2345,
        line: expectedLine,
        // The declared names, in whatever order the checker prints the union.
        message: expect.stringMatching(/^Argument of type '"nodes"' is not assignable to parameter of type '("namespace" \| "node"|"node" \| "namespace")'\.$/),
      },
    ]);
  }, 60_000);
});
