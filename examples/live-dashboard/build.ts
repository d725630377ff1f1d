/**
 * Bundles the dashboard page for the browser: `page/app.ts` and everything it imports (rxkube's
 * browser entry, rxjs) into one ES module `app.js`, next to `index.html` and `style.css`.
 * `platform: 'browser'` makes a `node:*` import anywhere in the graph a build error.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const PAGE = join(import.meta.dirname, 'page');

/** Options of {@link buildDashboard}. */
export interface BuildDashboardOptions {
  /** Minify the bundle. Default false (readable in the browser's tools; a source map is written either way). */
  readonly minify?: boolean;
}

/** Writes the page (`index.html`, `style.css`, `app.js` and its source map) into `outDir`. */
export async function buildDashboard(outDir: string, options: BuildDashboardOptions = {}): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(PAGE, 'app.ts')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // The repository's own packages resolve to their TypeScript sources, as everywhere in it.
    conditions: ['source'],
    sourcemap: true,
    minify: options.minify === true,
    logLevel: 'silent',
    legalComments: 'none',
  });
  await Promise.all(['index.html', 'style.css'].map((f) => copyFile(join(PAGE, f), join(outDir, f))));
}
