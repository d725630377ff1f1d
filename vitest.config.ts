import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The unit tier runs without per-file isolation: each worker imports the runtime and the test kit
// once and runs its files one after another in that process (about 2 min 20 s against 6–7 min
// isolated on a 2-core machine: importing was most of an isolated file's time). The price is
// shared process state, so a file must leave nothing behind (docs/testing-speed.md; a real-time
// RxJS timer cancelled while a later file's virtual time ran once failed that file, closed in
// `virtualTime()` itself). RXKUBE_TEST_ISOLATE=1 runs every file isolated again (`npm run
// test:isolated`), to tell a leak between files from a failure of the file itself;
// RXKUBE_TIMER_AUDIT=1 lists the intervals each file leaves running.
//
// Workers: two without isolation (one per core on a 2-core machine: the files' server round
// trips and child processes overlap). Isolated, vitest's default of one per core minus one. On a
// busy machine extra workers only stretch every test's wall-clock time towards its timeout.
// RXKUBE_TEST_WORKERS overrides either.
const isolate = process.env['RXKUBE_TEST_ISOLATE'] === '1';
const requested = Number(process.env['RXKUBE_TEST_WORKERS']);
const unitWorkers = Number.isInteger(requested) && requested > 0 ? requested : isolate ? Math.max(1, availableParallelism() - 1) : 2;

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  // The embedded API server's data files (kube-openapi.json 0.9 MB, kube-proto.json 0.2 MB) are
  // loaded by nearly every test file: as one `JSON.parse` string (1 MB) they are read from the
  // module cache, shipped to the worker and evaluated faster than as named-export object literals
  // with a source map (3.9 MB for kube-openapi.json). Every JSON import in the repo is a default import.
  json: { stringify: true, namedExports: false },
  test: {
    setupFiles: ['test/helpers/fast-check-seed.ts', 'test/helpers/timer-audit.ts'],
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
          isolate,
          maxWorkers: unitWorkers,
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
