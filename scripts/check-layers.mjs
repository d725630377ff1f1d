/* global console, process, URL */
// Import-direction check (run by `npm run lint`). Each folder of src/ is a layer; a file may import
// from its own layer and the layers before it, never from a later one. `operators/` and the entry
// files only re-export (and import the Node.js version check, src/api/require-node.ts). Exits
// non-zero and names every offending import.
import fs from 'node:fs';
import path from 'node:path';

const LAYERS = [
  'api', 'logging', 'client', 'reflector', 'cache', 'informer', 'workqueue',
  'metrics', 'events', 'leader-election', 'controller', 'manager', 'testing',
];
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const problems = [];

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function layerOf(file) {
  const rel = path.relative(src, file);
  if (rel.startsWith('..')) return undefined;
  const first = rel.split(path.sep)[0];
  return LAYERS.includes(first) ? first : undefined;
}

function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [];
  const re = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (let m; (m = re.exec(text)) !== null; ) specs.push(m[1] ?? m[2]);
  return specs.filter((s) => s.startsWith('.'));
}

for (const file of walk(src)) {
  const rel = path.relative(root, file);
  const layer = layerOf(file);
  if (layer === undefined) {
    if (rel !== path.join('src', 'index.ts')) problems.push(`${rel}: file outside any layer folder (${LAYERS.join(', ')})`);
    continue;
  }
  for (const spec of importsOf(file)) {
    const target = path.resolve(path.dirname(file), spec);
    const targetLayer = layerOf(target);
    if (targetLayer === undefined) {
      problems.push(`${rel}: imports ${spec}, which is outside src/ layers`);
    } else if (LAYERS.indexOf(targetLayer) > LAYERS.indexOf(layer)) {
      problems.push(`${rel}: layer '${layer}' imports '${targetLayer}' (${spec}); the order is ${LAYERS.join(' → ')}`);
    }
  }
}

// The workspace packages (packages/*) are written against rxkube's public entries: their sources
// import `rxkube` or `rxkube/<door>` by name and their own files, never a path outside their folder.
const packagesDir = path.join(root, 'packages');
for (const pkg of fs.existsSync(packagesDir) ? fs.readdirSync(packagesDir) : []) {
  const pkgSrc = path.join(packagesDir, pkg, 'src');
  if (!fs.existsSync(pkgSrc)) continue;
  for (const file of walk(pkgSrc)) {
    for (const spec of importsOf(file)) {
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(pkgSrc + path.sep)) problems.push(`${path.relative(root, file)}: imports ${spec}, outside packages/${pkg}/src; use rxkube's public entries ('rxkube', 'rxkube/<door>')`);
    }
  }
}


// The package entries: operators/, src/index.ts and each layer's door (src/<layer>/index.ts).
const entryFiles = [
  ...fs.readdirSync(path.join(root, 'operators')).map((n) => path.join(root, 'operators', n)),
  ...fs.readdirSync(src).map((n) => path.join(src, n)),
  ...LAYERS.map((l) => path.join(src, l, 'index.ts')).filter((f) => fs.existsSync(f)),
];
{
  for (const file of entryFiles) {
    const name = path.basename(file);
    const entry = path.dirname(file);
    if (!name.endsWith('.ts') || fs.statSync(file).isDirectory()) continue;
    const rel = path.relative(root, file);
    if (entry.endsWith('operators') && name !== 'index.ts') problems.push(`${rel}: operators/ holds only its index of re-exports`);
    const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const statements = code.split(';').map((s) => s.trim()).filter(Boolean);
    for (const s of statements) {
      if (/^export \*/.test(s)) problems.push(`${rel}: 'export *' (entries list every name on purpose): ${s.slice(0, 60)}`);
      else if (/^import ['"][^'"]*\/?require-node\.js['"]$/.test(s)) continue; // the Node.js version check
      else if (!/^export (type )?\{[^}]*\} from ['"][^'"]+['"]$/s.test(s)) problems.push(`${rel}: entries only re-export: ${s.slice(0, 60)}`);
    }
  }
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('check-layers: imports follow ' + LAYERS.join(' → '));
