import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The unit tier runs its files without per-file isolation: each worker imports the runtime and
// the test kit's module graph once, not once per file (isolated, re-importing it was most of the
// tier's CPU: 7.3 min against 2.3 min on a 2-core machine). Files therefore share module state,
// so a test file must leave none behind that another could see: restore what it changes
// (environment, fake timers, process listeners), close its servers, and assert on what it made
// (its own registry, logger or names), not on process-wide totals. `npm run test:isolated` runs
// the tier isolated, to tell a shared-state failure from a real one.
//
// Two workers by default (vitest's default is one per core minus one: a single worker on a 2-core
// machine, which then waits out every file's server round trips and real-time waits one after
// another). RXKUBE_TEST_WORKERS=N sets another count.
const requested = Number(process.env['RXKUBE_TEST_WORKERS']);
const unitWorkers = Number.isInteger(requested) && requested > 0 ? requested : Math.max(2, availableParallelism() - 1);

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  // The embedded API server's data files (kube-openapi.json 0.9 MB, kube-proto.json 0.2 MB) are
  // loaded by nearly every test file: as one `JSON.parse` string (1 MB) they are read from the
  // module cache, shipped to the worker and evaluated faster than as named-export object literals
  // with a source map (3.9 MB for kube-openapi.json). Every JSON import in the repo is a default import.
  json: { stringify: true, namedExports: false },
  test: {
    setupFiles: ['test/helpers/fast-check-seed.ts'],
    // Managers log at info by default; tests that look at logs pass their own logger.
    env: { RXKUBE_LOG: 'off' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/consumer/**', 'test/browser/**', 'node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          maxWorkers: unitWorkers,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // Real-browser tests: headless Chromium (RXKUBE_CHROMIUM or on the PATH) via puppeteer-core.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
