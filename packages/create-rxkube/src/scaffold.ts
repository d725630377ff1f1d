import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkProjectName, kindNames, type KindNames } from './names.js';
import { renderTemplates, substitute, TEMPLATES_DIR, writeFiles, type Placeholders, type RenderedFile } from './render.js';
import { ScaffoldError } from './scaffold-error.js';
import { PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES, RXKUBE_VERSION } from './versions.js';

/** The first (or another) custom resource of a project. */
export interface KindOptions {
  readonly group: string;
  readonly kind: string;
  /** Served versions; the first is the storage version. */
  readonly versions: readonly string[];
}

/** Options of {@link createProject}. */
export interface CreateProjectOptions extends KindOptions {
  /** The project's folder; it must not exist or be empty. */
  readonly dir: string;
  /** The npm package name, also the name of the Deployment, ServiceAccount and roles. */
  readonly name: string;
  /** Where templates are read from; default this package's `templates/`. */
  readonly templatesDir?: string;
}

/** Options of {@link addKind}. */
export interface AddKindOptions extends KindOptions {
  /** The project's folder (made by {@link createProject}). */
  readonly dir: string;
  readonly templatesDir?: string;
}

/** Comment lines in `src/manager.ts` above which {@link addKind} inserts a kind's lines. */
export const MARKERS = {
  imports: '// create-rxkube:imports',
  controllers: '// create-rxkube:controllers',
  samples: '// create-rxkube:samples',
} as const;

const MANAGER_FILE = join('src', 'manager.ts');

function kindPlaceholders(names: KindNames, crdVersions: string): Placeholders {
  return {
    group: names.group,
    Kind: names.kind,
    kindCamel: names.camel,
    kindFile: names.file,
    plural: names.plural,
    singular: names.singular,
    DESCRIPTOR: names.descriptor,
    KIND_CONST: names.constant,
    storageVersion: names.versions[0] ?? '',
    crdVersions,
  };
}

async function crdVersionsYaml(names: KindNames, templatesDir: string): Promise<string> {
  const part = await readFile(join(templatesDir, 'parts', 'crd-version.yaml.tmpl'), 'utf8');
  return names.versions
    .map((version, i) => substitute(part, { ...kindPlaceholders(names, ''), version, storage: String(i === 0) }, 'templates/parts/crd-version.yaml.tmpl'))
    .join('')
    .trimEnd();
}

/** `text` with `line` inserted above the line holding `marker` (kept at its indentation). */
export function insertAboveMarker(text: string, marker: string, line: string, file: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes(marker));
  if (at < 0) throw new ScaffoldError('SCAFFOLD_MARKER_MISSING', `${file}: no "${marker}" line; add the kind's lines by hand (see the create-rxkube README)`);
  const indent = /^\s*/.exec(lines[at] ?? '')?.[0] ?? '';
  lines.splice(at, 0, `${indent}${line}`);
  return lines.join('\n');
}

/** Refuses (writing nothing) when any of `files` exists under `dir`. */
async function checkAbsent(dir: string, files: readonly RenderedFile[]): Promise<void> {
  for (const file of files) {
    const target = join(dir, file.path);
    if (await access(target).then(() => true, () => false)) throw new ScaffoldError('SCAFFOLD_KIND_EXISTS', `${target}: already exists; the kind was added before (nothing is overwritten)`);
  }
}

/**
 * Adds a custom resource kind to a project: its CRD (`crds/`), its controller with a finalizer and
 * status conditions (`src/`), its virtual-time test (`test/`), and its lines in `src/manager.ts`.
 * Nothing is overwritten: a kind whose files exist is refused.
 */
export async function addKind(options: AddKindOptions): Promise<KindNames> {
  const templatesDir = options.templatesDir ?? TEMPLATES_DIR;
  const names = kindNames(options.group, options.kind, options.versions);
  const managerPath = join(options.dir, MANAGER_FILE);
  const manager = await readFile(managerPath, 'utf8').catch(() => {
    throw new ScaffoldError('SCAFFOLD_NOT_A_PROJECT', `${managerPath}: not found; run \`create-rxkube api\` inside a project made by \`npm create rxkube\``);
  });
  const values = kindPlaceholders(names, await crdVersionsYaml(names, templatesDir));
  const files = await renderTemplates('api', values, templatesDir);
  // Every edit is worked out before anything is written: a missing marker writes nothing.
  let next = insertAboveMarker(manager, MARKERS.imports, `import { ${names.camel}Controller } from './${names.file}-controller.js';`, MANAGER_FILE);
  next = insertAboveMarker(next, MARKERS.imports, `import { sample${names.kind} } from './${names.file}.js';`, MANAGER_FILE);
  next = insertAboveMarker(next, MARKERS.controllers, `mgr.add(${names.camel}Controller({ informers, client: options.client }));`, MANAGER_FILE);
  next = insertAboveMarker(next, MARKERS.samples, `sample${names.kind}('${names.file}-sample'),`, MANAGER_FILE);
  await checkAbsent(options.dir, files);
  await writeFiles(options.dir, files);
  await writeFile(managerPath, next);
  return names;
}

function jsonBlock(deps: Readonly<Record<string, string>>, indent: string): string {
  return Object.entries(deps)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, range]) => `${indent}${JSON.stringify(name)}: ${JSON.stringify(range)}`)
    .join(',\n');
}

/**
 * Writes a new operator project into `dir`: package.json, tsconfig, the manager and its entry
 * point, the manifests script, Dockerfile, deploy/ and a CI workflow, then the first kind
 * ({@link addKind}).
 */
export async function createProject(options: CreateProjectOptions): Promise<KindNames> {
  const templatesDir = options.templatesDir ?? TEMPLATES_DIR;
  checkProjectName(options.name); // check before writing anything
  kindNames(options.group, options.kind, options.versions);
  const existing = await readdir(options.dir).catch(() => []);
  if (existing.length > 0) throw new ScaffoldError('SCAFFOLD_TARGET_NOT_EMPTY', `${options.dir}: not empty; choose a new folder`);
  const values: Placeholders = {
    projectName: options.name,
    rxkubeVersion: RXKUBE_VERSION,
    dependencies: jsonBlock({ rxkube: `^${RXKUBE_VERSION}`, ...PROJECT_DEPENDENCIES }, '    '),
    devDependencies: jsonBlock({ '@rxkube/codegen': `^${RXKUBE_VERSION}`, '@rxkube/testkit': `^${RXKUBE_VERSION}`, ...PROJECT_DEV_DEPENDENCIES }, '    '),
  };
  await writeFiles(options.dir, await renderTemplates('project', values, templatesDir));
  return addKind({ dir: options.dir, group: options.group, kind: options.kind, versions: options.versions, templatesDir });
}
