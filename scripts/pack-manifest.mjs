/* global console, process, URL */
// npm's prepack / postpack hooks (`npm pack`, `npm publish`; run by npm, not by hand).
//
//   prepack:  removes dist/, builds it (tsc -p tsconfig.build.json), then writes the package.json
//             the tarball ships: the same, less the `source` export conditions. Those point at the
//             TypeScript sources, for this repo's own tests, tsx scripts and vitest
//             (`--conditions=source`); the tarball holds no sources, and a consumer whose tooling
//             sets a `source` condition of its own must get the build, not our .ts files.
//             The original is kept as .package.json.orig.
//   postpack: puts the original package.json back.
//
// A pack that failed after prepack leaves the stripped package.json behind; the next prepack (or
// postpack) restores it from .package.json.orig first.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

// The package being packed: npm runs lifecycle scripts in the package's folder (the repository
// root for rxkube, packages/<name> for the workspace packages).
const root = process.cwd();
const manifest = path.join(root, 'package.json');
const backup = path.join(root, '.package.json.orig');
const CONDITION = 'source';

function restore() {
  if (fs.existsSync(backup)) fs.renameSync(backup, manifest);
}

/** The `exports` map without the `source` condition, at any depth. */
function strip(exports) {
  if (Array.isArray(exports)) return exports.map(strip);
  if (exports === null || typeof exports !== 'object') return exports;
  return Object.fromEntries(Object.entries(exports).filter(([k]) => k !== CONDITION).map(([k, v]) => [k, strip(v)]));
}

const step = process.argv[2];
if (step === 'prepack') {
  restore();
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // A workspace package builds against rxkube's declarations (dist/): build the runtime first.
  const runtime = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  if (root !== runtime && !fs.existsSync(path.join(runtime, 'dist', 'src', 'index.d.ts'))) {
    execFileSync(process.execPath, [tsc, '-p', path.join(runtime, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2], cwd: runtime });
  }
  for (const dep of Object.keys(JSON.parse(fs.readFileSync(manifest, 'utf8')).dependencies ?? {}).filter((d) => d.startsWith('@rxkube/'))) {
    const dir = path.join(runtime, 'packages', dep.slice('@rxkube/'.length));
    if (!fs.existsSync(path.join(dir, 'dist', 'index.d.ts'))) execFileSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2], cwd: dir });
  }
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2], cwd: root } /* tsc reports on stdout: keep npm pack --json's stdout clean */);
  const text = fs.readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  pkg.exports = strip(pkg.exports);
  // A workspace package's dev link to the runtime (`file:../..`) means nothing to a consumer.
  if (pkg.devDependencies !== undefined) delete pkg.devDependencies.rxkube;
  fs.writeFileSync(backup, text);
  fs.writeFileSync(manifest, JSON.stringify(pkg, null, 2) + '\n');
  console.error(`prepack: built dist/; package.json for the tarball has no '${CONDITION}' export condition`);
} else if (step === 'postpack') {
  restore();
} else {
  console.error('usage: node scripts/pack-manifest.mjs prepack|postpack');
  process.exit(2);
}
