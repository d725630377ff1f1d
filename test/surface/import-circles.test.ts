/**
 * scripts/check-layers.mjs rejects import circles (inside a folder and across folders, type-only
 * imports included), and the layers this repository has cleaned are free of them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const script = path.join(repo, 'scripts', 'check-layers.mjs');
const trees: string[] = [];

/** Runs the check on the repository or on a tree of files; its exit code and every line it printed. */
function checkLayers(root?: string): { code: number; lines: string[] } {
  try {
    const out = execFileSync(process.execPath, [script, ...(root === undefined ? [] : [root])], { encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, lines: out.split('\n').filter(Boolean) };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, lines: `${e.stdout}${e.stderr}`.split('\n').filter(Boolean) };
  }
}

/** A throw-away repository holding `files` (path → text) under src/. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-layers-'));
  trees.push(root);
  for (const [name, text] of Object.entries({ 'index.ts': '', ...files })) {
    fs.mkdirSync(path.dirname(path.join(root, 'src', name)), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', name), text);
  }
  return root;
}

afterEach(() => {
  for (const t of trees.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

describe('check-layers: import circles', () => {
  it('a tree without circles passes', () => {
    const root = tree({
      'controller/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'controller/b.ts': "import type { C } from './c.js';\nexport const b: C = 1;\n",
      'controller/c.ts': 'export type C = number;\n',
    });
    expect(checkLayers(root)).toEqual({ code: 0, lines: [expect.stringMatching(/^check-layers: imports follow/)] });
  });

  it('a circle inside a folder fails, named with its files and one path through them', () => {
    const root = tree({
      'workqueue/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'workqueue/b.ts': "import { c } from './c.js';\nexport const b = c;\n",
      'workqueue/c.ts': "import { a } from './a.js';\nexport const c = () => a;\n",
      'workqueue/d.ts': "import { a } from './a.js';\nexport const d = a;\n",
    });
    const { code, lines } = checkLayers(root);
    expect(code).toBe(1);
    expect(lines).toContain('  import circle in src/workqueue/ among 3 files (a.ts, b.ts, c.ts), e.g. a.ts → b.ts → c.ts → a.ts');
  });

  it('type-only imports count: a circle of `import type` fails too', () => {
    const root = tree({
      'controller/options.ts': "import type { Run } from './run.js';\nexport interface Options { run?: Run }\n",
      'controller/run.ts': "import type { Options } from './options.js';\nexport interface Run { options: Options }\n",
    });
    const { code, lines } = checkLayers(root);
    expect(code).toBe(1);
    expect(lines.filter((l) => l.includes('import circle'))).toEqual([
      '  import circle in src/controller/ among 2 files (options.ts, run.ts), e.g. options.ts → run.ts → options.ts',
    ]);
  });

  it('a circle across folders of one layer fails, the files named from src/', () => {
    const root = tree({
      'testing/harness.ts': "import { server } from './api-server/server.js';\nexport const harness = server;\n",
      'testing/api-server/server.ts': "export { harness as server } from '../harness.js';\n",
    });
    const { code, lines } = checkLayers(root);
    expect(code).toBe(1);
    expect(lines).toContain(
      '  import circle in src/testing/ + src/testing/api-server/ among 2 files (testing/api-server/server.ts, testing/harness.ts), e.g. testing/api-server/server.ts → testing/harness.ts → testing/api-server/server.ts',
    );
  });

  it('the repository: no circle in controller, sharding, workqueue or leader-election', () => {
    const { lines } = checkLayers();
    const circles = lines.filter((l) => l.includes('import circle'));
    expect(circles.filter((l) => /src\/(controller|sharding|workqueue|leader-election)\//.test(l))).toEqual([]);
    // The check looks at the whole tree: it reports any circle still left elsewhere.
    for (const l of circles) expect(l).toMatch(/^ {2}import circle in (src\/[a-z/-]+\/( \+ )?)+ among \d+ files \(.*\), e.g. .* → /);
  });
});
