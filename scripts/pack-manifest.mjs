/* global console, process, URL */
// npm's prepack / postpack hooks (`npm pack`, `npm publish`; run by npm, not by hand), and the
// runtime's build (`npm run build`).
//
//   build:    (the runtime, rxkube) builds dist/ as it is published:
//             - declarations: tsc -p tsconfig.build.json (declarations only), same paths as the
//               sources (dist/src/x/y.d.ts); then every .d.ts that no `exports` entry's types reach
//               is deleted (a consumer's TypeScript can never load it);
//             - JavaScript: esbuild bundles the `exports` entries (their `source` condition) into
//               dist/<entry>.js plus shared chunks (dist/chunks/), code-split so that a class is
//               one class whichever entries import it; linked source maps with the sources inlined.
//               One file per entry point plus a few chunks load 2–3× faster than one per module.
//             - the Node.js version check (src/api/require-node.ts) stays its own module,
//               dist/src/api/require-node.js, imported on the first line of every entry: ES modules
//               evaluate in import order, and esbuild orders a code-split entry's imports by chunk,
//               not by source, so only the first line guarantees the check runs before any chunk
//               (on a Node.js too old for rxkube, the import then fails with rxkube's message).
//   prepack:  removes dist/, builds it (the runtime as above; a workspace package with
//             tsc -p tsconfig.build.json), then writes the package.json the tarball ships: the
//             same, less the `source` export conditions. Those point at the TypeScript sources, for
//             this repo's own tests, tsx scripts and vitest (`--conditions=source`); the tarball
//             holds no sources, and a consumer whose tooling sets a `source` condition of its own
//             must get the build, not our .ts files. The original is kept as .package.json.orig.
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
const runtime = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const requireFromRuntime = createRequire(path.join(runtime, 'package.json'));
const tsc = requireFromRuntime.resolve('typescript/bin/tsc');
/** The runtime module that checks the Node.js version; every entry imports it first. */
const REQUIRE_NODE = 'src/api/require-node.ts';

function restore() {
  if (fs.existsSync(backup)) fs.renameSync(backup, manifest);
}

/** The `exports` map without the `source` condition, at any depth. */
function strip(exports) {
  if (Array.isArray(exports)) return exports.map(strip);
  if (exports === null || typeof exports !== 'object') return exports;
  return Object.fromEntries(Object.entries(exports).filter(([k]) => k !== CONDITION).map(([k, v]) => [k, strip(v)]));
}

/** Runs tsc on a project (its report goes to stderr: keep npm pack --json's stdout clean). */
function runTsc(project, cwd) {
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: ['ignore', 2, 2], cwd });
}

/** Path relative to `dir`, `/`-separated. */
function rel(dir, file) {
  return path.relative(dir, file).split(path.sep).join('/');
}

/** The runtime's entries: [export name, source .ts, built .js, declarations .d.ts], absolute. */
function runtimeEntries() {
  const pkg = JSON.parse(fs.readFileSync(path.join(runtime, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports).map(([name, conditions]) => {
    for (const c of [CONDITION, 'types', 'default']) {
      if (typeof conditions[c] !== 'string') throw new Error(`package.json exports['${name}'] has no '${c}' path`);
    }
    return [name, ...[conditions[CONDITION], conditions.default, conditions.types].map((p) => path.resolve(runtime, p))];
  });
}

/**
 * Deletes every .d.ts under `dist` that none of `entries` reaches through relative imports and
 * exports (`from './x.js'`, `import('./x.js')`, `import './x.js'`). A relative specifier without
 * its .d.ts fails the build.
 */
function pruneDeclarations(dist, entries) {
  const reached = new Set();
  const pending = [...entries];
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  while (pending.length > 0) {
    const file = pending.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.d.ts'));
      if (!fs.existsSync(target)) throw new Error(`${rel(runtime, file)} imports ${spec}: no ${rel(runtime, target)}`);
      pending.push(target);
    }
  }
  let removed = 0;
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.d.ts') && !reached.has(p)) {
        fs.rmSync(p);
        removed++;
      }
    }
    if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
  })(dist);
  return { kept: reached.size, removed };
}

/** dist/ for the runtime: declarations by tsc, JavaScript bundled by esbuild (see the top). */
async function buildRuntime() {
  const dist = path.join(runtime, 'dist');
  fs.rmSync(dist, { recursive: true, force: true });
  const entries = runtimeEntries();
  runTsc(path.join(runtime, 'tsconfig.build.json'), runtime);
  for (const [name, , , types] of entries) {
    if (!fs.existsSync(types)) throw new Error(`tsc wrote no ${rel(runtime, types)} (exports['${name}'].types)`);
  }
  const declarations = pruneDeclarations(dist, entries.map(([, , , types]) => types));

  // esbuild comes with tsx (a devDependency): resolve it from there, wherever npm put it.
  const esbuild = createRequire(requireFromRuntime.resolve('tsx/package.json'))('esbuild');
  const common = { outdir: dist, outbase: runtime, absWorkingDir: runtime, format: 'esm', platform: 'node', target: 'node22.19', sourcemap: 'linked', sourcesContent: true, logLevel: 'warning' };
  const requireNode = path.join(runtime, REQUIRE_NODE);
  const requireNodeJs = path.join(dist, REQUIRE_NODE.replace(/\.ts$/, '.js'));
  // The check itself, unbundled: dist/src/api/require-node.js.
  await esbuild.build({ ...common, entryPoints: [requireNode] });
  // The entries: each import of the check resolves to an empty module here; the real import is
  // put on each entry's first line below.
  const checkImportedFirst = {
    name: 'require-node-first',
    setup(build) {
      build.onResolve({ filter: /(^|\/)require-node\.js$/ }, (args) => {
        const target = path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
        return target === requireNode ? { path: target, namespace: 'require-node-first' } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'require-node-first' }, () => ({ contents: '', loader: 'js' }));
    },
  };
  const result = await esbuild.build({
    ...common,
    entryPoints: entries.map(([, source]) => source),
    bundle: true,
    splitting: true,
    packages: 'external', // dependencies and peers (rxjs, immer, prom-client, client-node) stay imports
    chunkNames: 'chunks/[name]-[hash]',
    keepNames: true, // RxkubeError sets `name` from the class name: bundling must not rename classes
    plugins: [checkImportedFirst],
    write: false,
  });
  const built = new Set(entries.map(([, , js]) => js));
  const written = new Set();
  for (const out of result.outputFiles) {
    let contents = out.contents;
    if (built.has(out.path) || built.has(out.path.replace(/\.map$/, ''))) {
      const text = out.text;
      if (out.path.endsWith('.map')) {
        // One more generated line before the first: an empty group of mappings in front.
        const map = JSON.parse(text);
        map.mappings = ';' + map.mappings;
        contents = JSON.stringify(map);
      } else {
        let spec = rel(path.dirname(out.path), requireNodeJs);
        if (!spec.startsWith('.')) spec = `./${spec}`;
        contents = `import ${JSON.stringify(spec)};\n${text}`;
      }
    }
    fs.mkdirSync(path.dirname(out.path), { recursive: true });
    fs.writeFileSync(out.path, contents);
    written.add(out.path);
  }
  for (const [name, , js] of entries) {
    if (!written.has(js)) throw new Error(`esbuild wrote no ${rel(runtime, js)} (exports['${name}'].default)`);
  }
  const chunks = [...written].filter((p) => p.endsWith('.js') && !built.has(p)).length;
  console.error(`build: dist/ holds ${entries.length} entries and ${chunks} chunks (esbuild), ${declarations.kept} declaration files (tsc; ${declarations.removed} unreachable ones deleted)`);
}

const step = process.argv[2];
if (step === 'build') {
  await buildRuntime();
} else if (step === 'prepack') {
  restore();
  if (root === runtime) {
    await buildRuntime();
  } else {
    fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
    // A workspace package builds against rxkube's declarations (dist/): build the runtime first.
    if (!fs.existsSync(path.join(runtime, 'dist', 'src', 'index.d.ts'))) await buildRuntime();
    for (const dep of Object.keys(JSON.parse(fs.readFileSync(manifest, 'utf8')).dependencies ?? {}).filter((d) => d.startsWith('@rxkube/'))) {
      const dir = path.join(runtime, 'packages', dep.slice('@rxkube/'.length));
      if (!fs.existsSync(path.join(dir, 'dist', 'index.d.ts'))) runTsc(path.join(dir, 'tsconfig.build.json'), dir);
    }
    runTsc(path.join(root, 'tsconfig.build.json'), root);
  }
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
  console.error('usage: node scripts/pack-manifest.mjs build|prepack|postpack');
  process.exit(2);
}
