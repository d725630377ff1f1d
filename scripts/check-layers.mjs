/* global console, process, URL */
// Import-direction check (run by `npm run lint`). Each folder of src/ is a layer; a file may import
// from its own layer and the layers before it, never from a later one. `operators/` and the entry
// files only re-export (and import the Node.js version check, src/api/require-node.ts). No file
// may reach itself again through its imports (an import circle), inside a folder or across
// folders. Exits non-zero and names every offending import and every circle.
import fs from 'node:fs';
import path from 'node:path';

const LAYERS = [
  'api', 'logging', 'client', 'reflector', 'cache', 'informer', 'workqueue',
  'metrics', 'events', 'leader-election', 'controller', 'sharding', 'webhook', 'manager', 'testing', 'browser',
];
// The repository root; a test passes another tree as the first argument.
const root = process.argv[2] !== undefined ? path.resolve(process.argv[2]) : path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
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
  const re = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
  for (let m; (m = re.exec(text)) !== null; ) specs.push(m[1] ?? m[2] ?? m[3]);
  return specs.filter((s) => s.startsWith('.'));
}

/** The .ts file a relative import specifier of `file` names. */
function resolveImport(file, spec) {
  return path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
}

// Import circles. Every relative import counts, `import type` included: a circle of types still
// ties its files together (none can be read, tested, moved to another package or split without
// the others), a type import becomes a value import by deleting one word, and then the circle
// decides module evaluation order (a class or const read before its module has run). The type
// edges are also how such circles start: the controller folder's circle was mostly types.
// A circle is reported once, as one concrete path through its files (found with Tarjan's strongly
// connected components), so the fix is visible: break any one of the listed imports.
function importCircles(files) {
  const edges = new Map(files.map((f) => [f, [...new Set(importsOf(f).map((s) => resolveImport(f, s)))]]));
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let next = 0;
  const connect = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const f of files) if (!index.has(f)) connect(f);
  // One circle per component: a shortest way from its first file (in path order) back to itself.
  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0];
    const from = new Map([[start, undefined]]);
    const queue = [start];
    let last;
    while (queue.length > 0 && last === undefined) {
      const v = queue.shift();
      for (const w of edges.get(v) ?? []) {
        if (w === start) { last = v; break; }
        if (members.has(w) && !from.has(w)) { from.set(w, v); queue.push(w); }
      }
    }
    const circle = [];
    for (let v = last; v !== undefined; v = from.get(v)) circle.unshift(v);
    return { files: [...component].sort(), circle: [...circle, start] };
  });
}

const sourceFiles = walk(src);
const packageSources = fs.existsSync(path.join(root, 'packages'))
  ? fs.readdirSync(path.join(root, 'packages')).map((p) => path.join(root, 'packages', p, 'src')).filter((d) => fs.existsSync(d)).flatMap(walk)
  : [];
for (const { files, circle } of importCircles([...sourceFiles, ...packageSources])) {
  const folders = [...new Set(files.map((f) => path.relative(root, path.dirname(f))))].sort();
  const name = (f) => (folders.length === 1 ? path.basename(f) : path.relative(f.startsWith(src + path.sep) ? src : root, f));
  problems.push(
    `import circle in ${folders.map((f) => `${f}/`).join(' + ')} among ${files.length} files (${files.map(name).join(', ')}), e.g. ${circle.map(name).join(' → ')}`,
  );
}

for (const file of sourceFiles) {
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
const listDir = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => path.join(dir, n)) : []);
const entryFiles = [
  ...listDir(path.join(root, 'operators')),
  ...listDir(src),
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
