/* global console, process */
// Checks a packed rxkube (run by scripts/consumer-test.sh):
//   node check-package.mjs <dry-run.json> <unpacked package dir>
// - `npm pack --dry-run --json` lists dist/ (the three entries' JS and .d.ts) and LICENSE;
// - every path an export condition (at any depth) or `bin` names is in the tarball, and the
//   published exports carry no `source` condition;
// - every source map resolves: each of its sources is inlined (sourcesContent) or shipped;
// - rxkube: each entry's JavaScript (a bundle) imports the Node.js version check on its first
//   line, so the check runs before any of its chunks;
// - LICENSE is the Apache-2.0 text package.json names; rxjs and prom-client are peers only.
import fs from 'node:fs';
import path from 'node:path';

const [dryRunFile, dir] = process.argv.slice(2);
if (dryRunFile === undefined || dir === undefined) {
  console.error('usage: node check-package.mjs <dry-run.json> <unpacked package dir>');
  process.exit(2);
}
const problems = [];

// npm may print lifecycle output before the JSON: take from the first line that opens the array.
const dryText = fs.readFileSync(dryRunFile, 'utf8');
const dry = JSON.parse(dryText.slice(dryText.search(/^\[/m)));
const listed = new Set(dry[0].files.map((f) => f.path));
const pkgName = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name;
const entryFiles = pkgName === 'rxkube' ? ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/operators/index.js', 'dist/src/testing/index.js'] : ['dist/index.js', 'dist/index.d.ts'];
for (const want of ['LICENSE', 'package.json', ...entryFiles]) {
  if (!listed.has(want)) problems.push(`npm pack --dry-run does not list ${want}`);
}
if (![...listed].some((p) => p.startsWith('dist/'))) problems.push('npm pack --dry-run lists nothing under dist/');

const files = new Set();
(function walk(rel) {
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) walk(p);
    else files.add(p);
  }
})('');
for (const p of listed) if (!files.has(p)) problems.push(`dry run lists ${p}, the tarball lacks it`);

const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const targets = [];
(function collect(node, at) {
  if (typeof node === 'string') targets.push([at, node]);
  else if (Array.isArray(node)) node.forEach((n, i) => collect(n, `${at}[${i}]`));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'source') problems.push(`exports${at}: a 'source' condition is published`);
      collect(v, `${at}.${k}`);
    }
  }
})(pkg.exports, '');
for (const [name, target] of Object.entries(typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {}))) targets.push([`bin.${name}`, target]);
if (targets.length === 0) problems.push('package.json names no exports');
for (const [at, target] of targets) {
  const rel = path.posix.normalize(target).replace(/^\.\//, '');
  if (target.includes('*')) problems.push(`${at}: pattern ${target} (not checked; list files explicitly)`);
  else if (!files.has(rel)) problems.push(`${at} → ${target}: not in the tarball`);
}

if (pkgName === 'rxkube') {
  for (const [at, target] of targets) {
    if (!at.endsWith('.default')) continue;
    const rel = path.posix.normalize(target).replace(/^\.\//, '');
    if (!files.has(rel)) continue;
    const first = fs.readFileSync(path.join(dir, rel), 'utf8').split('\n', 1)[0];
    const spec = /^import ["'](\.{1,2}\/[^"']*require-node\.js)["'];$/.exec(first)?.[1];
    if (spec === undefined) problems.push(`${at} → ${target}: first line is not the Node.js version check's import (${first.slice(0, 60)})`);
    else if (!files.has(path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)))) problems.push(`${at} → ${target}: imports ${spec}, not in the tarball`);
  }
}

let maps = 0;
for (const p of files) {
  if (!p.endsWith('.map')) continue;
  maps++;
  const map = JSON.parse(fs.readFileSync(path.join(dir, p), 'utf8'));
  map.sources.forEach((source, i) => {
    const inlined = typeof map.sourcesContent?.[i] === 'string';
    const shipped = files.has(path.posix.normalize(path.posix.join(path.posix.dirname(p), map.sourceRoot ?? '', source)));
    if (!inlined && !shipped) problems.push(`${p}: source ${source} is neither inlined nor shipped`);
  });
}

const license = files.has('LICENSE') ? fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8') : '';
if (pkg.license !== 'Apache-2.0' || !/Apache License\s+Version 2\.0, January 2004/.test(license) || !license.includes('END OF TERMS AND CONDITIONS')) {
  problems.push(`LICENSE is not the Apache-2.0 text (package.json license: ${pkg.license})`);
}
for (const peer of pkgName === 'rxkube' ? ['rxjs', 'prom-client'] : ['rxkube']) {
  if (pkg.peerDependencies?.[peer] === undefined) problems.push(`${peer} is not a peerDependency`);
  if (pkg.dependencies?.[peer] !== undefined) problems.push(`${peer} is also a dependency (a second copy for consumers)`);
}

if (problems.length > 0) {
  console.error(`check-package: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-package ${pkgName}: ${files.size} files; ${targets.length} export/bin targets present; ${maps} source maps resolve; LICENSE Apache-2.0; peers ${Object.keys(pkg.peerDependencies).join(', ')}`);
