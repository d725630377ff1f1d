import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  // The embedded API server's data files (kube-openapi.json ~0.9 MB, kube-proto.json) are loaded by
  // nearly every test file: as `JSON.parse` of one string they are cached, shipped to the worker
  // and evaluated several times faster than as named-export object literals with a source map
  // (3.9 MB per load). Every JSON import in the repo is a default import.
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
          // vitest's default is one worker per core minus one: a single worker on a 2-core machine,
          // which then waits out every server round trip, child process and real-time wait of
          // ~280 files one after another. Much of a unit file's time is such waiting, so run
          // at least three files at once.
          maxWorkers: Math.max(3, availableParallelism() - 1),
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
