#!/usr/bin/env node
// Runs rxkube-controller-manager (see docs/controller-manager.md).
// Uses the compiled build when present; in a source checkout it runs the TypeScript through tsx.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli.js');

if (existsSync(built)) {
  try {
    await import('rxkube/api');
  } catch (err) {
    process.stderr.write(`rxkube-controller-manager: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const { main } = await import(pathToFileURL(built).href);
  process.exitCode = await main(process.argv.slice(2));
} else {
  const source = join(root, 'src', 'cli-main.ts');
  // tsx's loader in the child itself (no tsx CLI in between), so signals reach the program
  // directly and its own exit code comes back.
  let loader;
  try {
    loader = import.meta.resolve('tsx/esm');
  } catch {
    process.stderr.write('rxkube-controller-manager: no build found (run `npm run build`) and tsx is not installed\n');
    process.exit(1);
  }
  const child = spawn(process.execPath, ['--conditions=source', '--import', loader, source, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
