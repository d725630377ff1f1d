/**
 * What a controller's production install costs, side by side in one run: rxkube (packed from this
 * checkout, as `npm publish` would ship it) + rxjs, against `@kubernetes/client-node` (the version
 * rxkube depends on) + rxjs, each installed with `npm install --omit=dev` into a fresh project.
 *
 * - installed size (bytes on disk under node_modules) and package count;
 * - cold `import()` time: a fresh Node process per import, alternating contenders, median and
 *   spread of several; "Node + rxjs" is the floor both pay.
 *
 * Targets (issue: a lean runtime): rxkube's install adds ≤ 5 MB to client-node's own; importing
 * rxkube costs ≤ 0.3× importing client-node (client-node itself loads on first kubeconfig use).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, summary } from './support/stats.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const IMPORT_RUNS = 9;

function sh(cmd: string, args: readonly string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Bytes of every file under `dir` (symlinks not followed). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += bytesUnder(p);
    else if (e.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

/** Installed packages: folders under any node_modules that hold a package.json. */
function packageCount(nodeModules: string): number {
  let n = 0;
  for (const e of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const p = path.join(nodeModules, e.name);
    if (e.name.startsWith('@')) {
      n += packageCount(p);
      continue;
    }
    if (fs.existsSync(path.join(p, 'package.json'))) n++;
    if (fs.existsSync(path.join(p, 'node_modules'))) n += packageCount(path.join(p, 'node_modules'));
  }
  return n;
}

/** Bytes per installed package (top level of node_modules, scopes opened), by name. */
function packageSizes(nodeModules: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const e of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const p = path.join(nodeModules, e.name);
    if (e.name.startsWith('@')) {
      for (const [n, s] of packageSizes(p)) sizes.set(`${e.name}/${n}`, s);
    } else sizes.set(e.name, bytesUnder(p));
  }
  return sizes;
}

function project(base: string, name: string, deps: readonly string[]): string {
  const dir = path.join(base, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  sh('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', ...deps], dir);
  return dir;
}

/** Milliseconds for `await import(spec)` in a fresh Node process started in `dir`. */
function importMs(dir: string, spec: string): number {
  const out = sh(process.execPath, ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(spec)}); console.log(performance.now() - t);`], dir);
  return Number(out.trim());
}

export async function run(): Promise<string[]> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'rxkube-footprint-'));
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const rxjs = `rxjs@${pkg.devDependencies['rxjs'] ?? 'latest'}`;
    const clientNode = `@kubernetes/client-node@${pkg.dependencies['@kubernetes/client-node'] ?? 'latest'}`;
    const tarball = path.join(base, sh('npm', ['pack', '--pack-destination', base, '--loglevel=error'], repo).trim().split('\n').pop() ?? '');
    const contenders = [
      { name: 'rxkube + rxjs', dir: project(base, 'rxkube', [tarball, rxjs]), spec: 'rxkube' },
      { name: '@kubernetes/client-node + rxjs', dir: project(base, 'client-node', [clientNode, rxjs]), spec: '@kubernetes/client-node' },
      { name: 'rxjs alone (Node + rxjs)', dir: project(base, 'rxjs', [rxjs]), spec: 'rxjs' },
    ];
    const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    for (const c of contenders) importMs(c.dir, c.spec); // warm the file cache once
    for (let i = 0; i < IMPORT_RUNS; i++) for (const c of contenders) times.get(c.name)?.push(importMs(c.dir, c.spec));
    const sizes = new Map(contenders.map((c) => [c.name, bytesUnder(path.join(c.dir, 'node_modules'))]));
    const lines = [
      `Production installs (\`npm install --omit=dev\`) in fresh projects; cold \`import()\` in a fresh process, ${IMPORT_RUNS} runs each, alternating (median, min–max).`,
      '',
      '| install | packages | size on disk | cold import (ms) |',
      '| --- | ---: | ---: | ---: |',
      ...contenders.map((c) => `| ${c.name} | ${packageCount(path.join(c.dir, 'node_modules'))} | ${((sizes.get(c.name) ?? 0) / 1e6).toFixed(1)} MB | ${summary(times.get(c.name) ?? [])} |`),
      '',
    ];
    const [rx, cn, floor] = contenders.map((c) => ({ size: sizes.get(c.name) ?? 0, ms: median(times.get(c.name) ?? []) }));
    if (rx !== undefined && cn !== undefined && floor !== undefined) {
      const addedMb = (rx.size - cn.size) / 1e6;
      const theirs = packageSizes(path.join(contenders[1]?.dir ?? '', 'node_modules'));
      const extra = [...packageSizes(path.join(contenders[0]?.dir ?? '', 'node_modules'))].filter(([n]) => !theirs.has(n)).sort((a, b) => b[1] - a[1]);
      lines.push(`- What rxkube's install has that client-node's has not: ${extra.map(([n, s]) => `${n} ${(s / 1e6).toFixed(2)} MB`).join(', ')}.`);
      const importRatio = rx.ms / cn.ms;
      lines.push(
        `- rxkube's install adds **${addedMb.toFixed(1)} MB** to client-node's own (target ≤ 5 MB: ${addedMb <= 5 ? 'met' : 'not met'}).`,
        `- importing rxkube costs **${importRatio.toFixed(2)}×** importing client-node (target ≤ 0.3×: ${importRatio <= 0.3 ? 'met' : 'not met'}); above the Node + rxjs floor: rxkube ${(rx.ms - floor.ms).toFixed(0)} ms, client-node ${(cn.ms - floor.ms).toFixed(0)} ms.`,
      );
    }
    return lines;
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}
