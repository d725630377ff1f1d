#!/usr/bin/env node
// create-rxkube: `npm create rxkube my-operator`, `npx create-rxkube api --kind Gadget`.
// Uses the compiled build when present; in a source checkout it runs the TypeScript through tsx.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli.js');

if (existsSync(built)) {
  const { main } = await import(pathToFileURL(built).href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  const source = join(root, 'src', 'cli-main.ts');
  const require = createRequire(import.meta.url);
  let tsx;
  try {
    tsx = require.resolve('tsx/cli');
  } catch {
    process.stderr.write('create-rxkube: no build found (run `npm run build`) and tsx is not installed\n');
    process.exit(1);
  }
  const child = spawn(process.execPath, [tsx, '--conditions=source', source, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
