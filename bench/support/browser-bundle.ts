// Bundles code for a browser with esbuild, refusing anything Node.js-only: an import of a Node.js
// builtin (`node:*` or a bare `fs`, `http`, …) or of `@kubernetes/client-node` fails the build,
// naming the importing file; so does a free reference to `Buffer` or `process` in the output.
// Used by test/browser/browser-bundle.test.ts (the check) and bench/browser-bundle.ts (the sizes).
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

/** The repository root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One bundle: its minified size, gzipped size, and the source files in it. */
export interface BrowserBundle {
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Input files (repository-relative), node_modules included. */
  readonly inputs: readonly string[];
  readonly text: string;
}

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/** Node.js globals a browser does not have. */
const NODE_GLOBALS = ['Buffer', 'process', 'require', '__dirname', '__filename', 'setImmediate'];
const marker = (global: string): string => `__NODE_GLOBAL_${global}__`;
const NODE_ONLY_PACKAGES = ['@kubernetes/client-node', 'prom-client'];

/** esbuild plugin: any Node.js-only import is an error naming the file that imports it. */
function refuseNodeOnly(): Plugin {
  return {
    name: 'refuse-node-only',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const spec = args.path;
        const nodeOnly = spec.startsWith('node:') || NODE_BUILTINS.has(spec) || NODE_ONLY_PACKAGES.some((p) => spec === p || spec.startsWith(`${p}/`));
        if (!nodeOnly) return undefined;
        return { errors: [{ text: `Node.js-only import ${JSON.stringify(spec)} from ${path.relative(REPO, args.importer)}` }] };
      });
    },
  };
}

/**
 * Bundles `source` (an ES module's text, resolved from the repository root) for the browser: ESM,
 * minified, `source` export condition (the TypeScript sources). Rejects when anything Node.js-only
 * is imported, or when the output reads `Buffer` or `process` as a free global. `external`
 * packages stay imports (not counted).
 */
export async function bundleForBrowser(source: string, options: { readonly external?: readonly string[] } = {}): Promise<BrowserBundle> {
  const result = await build({
    stdin: { contents: source, resolveDir: REPO, sourcefile: 'browser-entry.ts', loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    conditions: ['source'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: [...(options.external ?? [])],
    plugins: [refuseNodeOnly()],
    // esbuild replaces only free references to a global (not properties, keys or strings): each
    // becomes a marker that is looked for below.
    // `process.env.NODE_ENV` is the one exception: browser bundlers (Vite, webpack, esbuild setups)
    // define it, and immer (behind object clients' edits) reads it.
    define: { ...Object.fromEntries(NODE_GLOBALS.map((g) => [g, marker(g)])), 'process.env.NODE_ENV': '"production"' },
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error('esbuild wrote no bundle');
  const text = file.text;
  for (const global of NODE_GLOBALS) {
    if (text.includes(marker(global))) throw new Error(`the browser bundle reads the Node.js global ${global}`);
  }
  return {
    bytes: file.contents.length,
    gzipBytes: gzipSync(file.contents, { level: 9 }).length,
    inputs: Object.keys(result.metafile.inputs),
    text,
  };
}
