import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaffoldError } from './scaffold-error.js';

/** Values of the `{{name}}` placeholders of the templates. */
export type Placeholders = Readonly<Record<string, string>>;

/** The templates folder of this package (`templates/`, shipped in the tarball). */
export const TEMPLATES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'templates');

const PLACEHOLDER = /\{\{([A-Za-z][A-Za-z0-9_]*)\}\}/g;

/**
 * `text` with each `{{name}}` replaced by its value. An unknown placeholder is an error (naming
 * the template), so a typo never reaches a generated project.
 */
export function substitute(text: string, values: Placeholders, where: string): string {
  return text.replace(PLACEHOLDER, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new ScaffoldError('SCAFFOLD_TEMPLATE_INVALID', `${where}: unknown placeholder {{${name}}}`);
    return value;
  });
}

/**
 * The output path of a template file: placeholders substituted in each part, the `.tmpl` suffix
 * dropped, and a leading `dot-` turned into `.` (npm drops `.gitignore` files from tarballs).
 */
export function outputPath(templatePath: string, values: Placeholders): string {
  return templatePath
    .split(/[\\/]/)
    .map((part) => substitute(part, values, templatePath).replace(/\.tmpl$/, '').replace(/^dot-/, '.'))
    .join(sep);
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** One rendered file: its path (relative to the project) and its text. */
export interface RenderedFile {
  readonly path: string;
  readonly text: string;
}

/** Renders every file of a template set (`project` or `api`) in memory. */
export async function renderTemplates(set: string, values: Placeholders, templatesDir = TEMPLATES_DIR): Promise<RenderedFile[]> {
  const root = join(templatesDir, set);
  const files = await listFiles(root);
  return Promise.all(
    files.map(async (file) => ({
      path: outputPath(file, values),
      text: substitute(await readFile(join(root, file), 'utf8'), values, `templates/${set}/${file}`),
    })),
  );
}

/** Writes rendered files under `dir`, creating folders; refuses to overwrite unless told to. */
export async function writeFiles(dir: string, files: readonly RenderedFile[], overwrite = false): Promise<void> {
  for (const file of files) {
    const target = join(dir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.text, { flag: overwrite ? 'w' : 'wx' }).catch((err: unknown) => {
      if (err instanceof Error && 'code' in err && err.code === 'EEXIST') throw new ScaffoldError('SCAFFOLD_KIND_EXISTS', `${target}: already exists; nothing is overwritten`);
      throw err;
    });
  }
}
